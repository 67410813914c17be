import { readFileSync, writeFileSync } from "node:fs";
import { withAgentDocs } from "../dist/host/agents/mapping-docs.js";
const file = new URL("../docs/agents.md", import.meta.url);
writeFileSync(file, withAgentDocs(readFileSync(file, "utf8")));
