// codex as a real client of the gateway (sluice serve): see gateway-suite.ts.
import { gatewaySuite } from "./gateway-suite.js";

gatewaySuite("codex");
