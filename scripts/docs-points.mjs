import { readFileSync, writeFileSync } from "node:fs";
import { withPointDocs } from "../dist/host/pipeline/point-docs.js";
// The SDK guide and the ABI document (§12) carry the same generated reference.
for (const file of [new URL("../guest-sdk/README.md", import.meta.url), new URL("../abi/README.md", import.meta.url)]) {
  writeFileSync(file, withPointDocs(readFileSync(file, "utf8")));
}
