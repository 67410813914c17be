import path from "node:path";
import { guestVectorSuite } from "./guest-vector-suite.js";
import { repoRoot } from "../helpers/fixtures.js";
import { cGuest } from "../helpers/native-guests.js";

guestVectorSuite("the C guest SDK codec, through the real host", () => cGuest(path.join(repoRoot, "test/fixtures/c/vector-echo.c"), path.join(repoRoot, "build/fixtures/c-vector-echo.wasm")), { truncation: true, ask: true });
