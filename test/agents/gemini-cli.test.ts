// gemini-cli as a real client of Sluice's agent hooks: see agent-suite.ts.
import { agentSuite } from "./agent-suite.js";

agentSuite("gemini-cli");
