import { guestFixture } from "./guest-fixtures.js";
import { guestVectorSuite } from "./guest-vector-suite.js";

guestVectorSuite("the AssemblyScript guest SDK codec, through the real host", () => guestFixture("vector-echo"), { truncation: true, ask: true });
