/**
 * Content at rest, sealed: every value a store writes that can carry payload
 * content (the operation record, the stored real result, a protected payload) is
 * AES-256-GCM ciphertext before it reaches a file or a database. SQLite keeps deleted
 * rows in WAL frames and PostgreSQL keeps dead tuples until VACUUM, so deleting is not
 * enough: plaintext must never be written at all.
 *
 * The key is derived (HKDF-SHA-256) from the deployment's secret, the one that keys the
 * digests (`<data>/digest.key` or the operator's own), under its own label: the digests
 * keep using the secret as they always did (records written before stay verifiable), the
 * sealing key is a different key. Each value gets a random 96-bit nonce, and the place it
 * belongs to (table, column, row id) as associated data, so a ciphertext copied to another
 * row or column does not open. The text form names its format version and key id
 * (`s1:<key id>:<base64 of nonce, ciphertext, tag>`) so keys can be rotated later and a
 * host with another key says so instead of guessing.
 *
 * Values written before sealing existed (JSON text) are still read; they are sealed the
 * next time the store writes them.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { freshRandom } from "../objects/fresh-random.js";
import { SluiceError } from "../errors/sluice-error.js";

/** Where a sealed value lives: it opens only there. */
export interface SealedPlace {
  /** `table.column`, e.g. `operation_results.result`. */
  column: string;
  /** The row's key (operation id, payload ref). */
  id: string;
}

/** Seals values for one deployment's stores, and opens what it sealed. */
export interface Sealer {
  /** Names the key (not secret): a short digest of it, written before every value. */
  readonly keyId: string;
  /** The value's JSON, sealed for `place`. */
  seal(value: unknown, place: SealedPlace): string;
  /** `json` (a value's JSON text, as `seal` would make it), sealed for `place`. */
  sealJson(json: string, place: SealedPlace): string;
  /** The value `seal` was given; RECORD_UNREADABLE when the text does not open here with this key. */
  open(text: string, place: SealedPlace): unknown;
}

const VERSION = "s1";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

function bytesOf(secret: Uint8Array | string): Buffer {
  // The same bytes createDigester keys its HMAC with.
  return typeof secret === "string" ? Buffer.from(secret, "utf8") : Buffer.from(secret);
}

function derive(secret: Buffer, label: string, length: number): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "sluice", label, length));
}

function unreadable(place: SealedPlace, why: string, details: Record<string, unknown> = {}): SluiceError {
  return new SluiceError("RECORD_UNREADABLE", `records store: ${place.column} of ${place.id} cannot be read: ${why}`, { column: place.column, id: place.id, ...details });
}

/**
 * The sealer of the deployment whose secret is `secret` (at least 16 bytes, as for digests).
 * @example
 * const sealer = createSealer(readFileSync("data/digest.key", "utf8").trim());
 * const text = sealer.seal(result, { column: "operation_results.result", id: operationId });
 * sealer.open(text, { column: "operation_results.result", id: operationId }); // the result
 */
export function createSealer(secret: Uint8Array | string): Sealer {
  const ikm = bytesOf(secret);
  if (ikm.byteLength < 16) throw new SluiceError("CONFIG_INVALID", `the records key is ${ikm.byteLength} bytes; use at least 16 (32 random bytes is the default)`);
  const key = derive(ikm, "sluice records sealing v1 aes-256-gcm", 32);
  const keyId = derive(ikm, "sluice records sealing v1 key id", 4).toString("hex");
  const prefix = `${VERSION}:${keyId}:`;
  const aad = (place: SealedPlace) => Buffer.from(`${VERSION}\u0000${place.column}\u0000${place.id}`, "utf8");
  const sealJson = (json: string, place: SealedPlace): string => {
    const nonce = freshRandom(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(place));
    const body = Buffer.concat([cipher.update(json, "utf8"), cipher.final()]);
    return prefix + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64");
  };
  return {
    keyId,
    seal: (value, place) => sealJson(JSON.stringify(value ?? null), place),
    sealJson,
    open(text, place) {
      if (!text.startsWith(`${VERSION}:`)) {
        // Written before sealing existed: JSON text, whose first character is never "s".
        try { return JSON.parse(text); } catch { throw unreadable(place, "it is neither sealed nor JSON (damaged)"); }
      }
      if (!text.startsWith(prefix)) {
        const other = text.slice(VERSION.length + 1).split(":", 1)[0];
        throw unreadable(place, `it is sealed under key ${other}, this host's key is ${keyId}; hosts sharing a database must share the key (sluice serve --digest-key-file)`, { keyId: other, hostKeyId: keyId });
      }
      const raw = Buffer.from(text.slice(prefix.length), "base64");
      if (raw.byteLength < NONCE_BYTES + TAG_BYTES) throw unreadable(place, "its ciphertext is truncated");
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
        decipher.setAAD(aad(place));
        decipher.setAuthTag(raw.subarray(raw.byteLength - TAG_BYTES));
        const plain = Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.byteLength - TAG_BYTES)), decipher.final()]);
        return JSON.parse(plain.toString("utf8"));
      } catch {
        // Never the cause: nothing of the content may reach an error.
        throw unreadable(place, "its ciphertext does not authenticate (changed, or moved from another row)", { keyId });
      }
    },
  };
}

/** A sealer with a random key: what it seals opens in this process only. */
export function ephemeralSealer(): Sealer {
  return createSealer(randomBytes(32));
}
