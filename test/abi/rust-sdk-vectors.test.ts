import path from "node:path";
import { guestVectorSuite } from "./guest-vector-suite.js";
import { repoRoot } from "../helpers/fixtures.js";
import { rustGuest } from "../helpers/native-guests.js";

guestVectorSuite("the Rust guest SDK codec, through the real host", () => rustGuest(path.join(repoRoot, "test/fixtures/rust/vector-echo"), path.join(repoRoot, "build/fixtures/rust-vector-echo.wasm")), { truncation: true, ask: true });
