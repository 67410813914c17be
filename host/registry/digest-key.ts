/**
 * The deployment's digest key (pipeline/digest.ts), which also seals the records' content
 * (records/sealed.ts): the operator's own, or 32 random bytes generated into
 * `<data>/digest.key` (0600) on first open and read back on every open after, so digests
 * stay comparable and stored results readable across restarts (storage/deployment-key.ts).
 *
 * Rotation: stop the server, move `digest.key` aside (keep it: it is what verifies the
 * digests already recorded), start again (a new key is generated) or give the new key. Records
 * written before keep their old-key digests; records written after use the new key. Sealed
 * content of the old key does not open under the new one: let resumable operations finish
 * (or their retention end) before rotating.
 */
export { DEPLOYMENT_KEY_FILE as DIGEST_KEY_FILE, loadDeploymentKey as loadDigestKey } from "../storage/deployment-key.js";
