// claude-code as a real client of Sluice's agent hooks: see agent-suite.ts.
import { agentSuite } from "./agent-suite.js";

agentSuite("claude-code");
