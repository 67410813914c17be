import { writeFileSync } from "node:fs";
import { renderManifestDocs } from "../dist/host/registry/manifest-docs.js";
writeFileSync(new URL("../abi/hook-yaml.md", import.meta.url), renderManifestDocs());
