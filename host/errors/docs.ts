import { ERROR_CODES } from "./codes.js";

/** Renders the error table as the Markdown page abi/errors.md; a test keeps the page in sync. */
export function renderErrorDocs(): string {
  const rows = Object.entries(ERROR_CODES).map(([code, { status, summary }]) => `| \`${code}\` | ${status} | ${summary} |`);
  return [
    "# Error codes",
    "",
    "Generated from `host/errors/codes.ts` by `npm run docs:errors`; `test/errors/catalogue.test.ts` fails when they differ.",
    "Every error the host reports carries one of these codes, as `error.code` in results, in `SluiceError.code` when thrown,",
    "and in the `code` field of HTTP error bodies. The HTTP status is the one the management API answers with.",
    "",
    "| code | HTTP | meaning |",
    "| --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}
