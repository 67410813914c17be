/** The release diff the console shows: the one the CLI uses too (host/pipeline/release-diff.ts). */
export * from "../../host/pipeline/release-diff.js";
