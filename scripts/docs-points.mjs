import { readFileSync, writeFileSync } from "node:fs";
import { withPointDocs } from "../dist/host/pipeline/point-docs.js";
const file = new URL("../guest-sdk/README.md", import.meta.url);
writeFileSync(file, withPointDocs(readFileSync(file, "utf8")));
