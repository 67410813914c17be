/**
 * Where a secret could be read at rest: every byte of every file under a folder (databases,
 * their -wal and -shm files, artifacts, keys), and every row of every table of a
 * PostgreSQL database, searched for the secret as UTF-8, UTF-16, hex and base64 (at each
 * of the three alignments base64 can put it in).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import pg from "pg";

/** The byte strings that give `secret` away. */
export function secretForms(secret: string): Buffer[] {
  const bytes = Buffer.from(secret, "utf8");
  const forms = [bytes, Buffer.from(secret, "utf16le"), Buffer.from(bytes.toString("hex"))];
  for (let shift = 0; shift < 3; shift++) {
    const b64 = Buffer.concat([Buffer.alloc(shift, 0x20), bytes]).toString("base64");
    // Only the groups of four characters that encode the secret's bytes alone.
    forms.push(Buffer.from(b64.slice(shift === 0 ? 0 : 4, Math.floor((shift + bytes.length) / 3) * 4)));
  }
  return forms;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}

/** The files under `dir` (relative paths) whose bytes hold `secret` in any form. */
export function filesHolding(dir: string, secret: string): string[] {
  const forms = secretForms(secret);
  return filesUnder(dir).filter((f) => { const bytes = readFileSync(f); return forms.some((form) => bytes.includes(form)); }).map((f) => path.relative(dir, f));
}

/** The names of the files under `dir`, relative, sorted: what the scan covered. */
export function filesIn(dir: string): string[] {
  return filesUnder(dir).map((f) => path.relative(dir, f)).sort();
}

/** `table: row count` of every table of the database's schema whose rows (as text) hold `secret` in any form. */
export async function tablesHolding(url: string, secret: string): Promise<{ holding: string[]; rows: Record<string, number> }> {
  const forms = secretForms(secret).map((b) => b.toString("latin1"));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1");
    const holding: string[] = [];
    const rows: Record<string, number> = {};
    for (const { name } of tables) {
      // The whole row as text: every column, bytea as hex.
      const { rows: found } = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${name}" t`);
      rows[name] = found.length;
      const hit = found.filter((r) => { const raw = Buffer.from(r.row, "utf8").toString("latin1"); return forms.some((f) => raw.includes(f)); });
      if (hit.length > 0) holding.push(`${name}: ${hit.length}`);
    }
    return { holding, rows };
  } finally {
    await client.end();
  }
}
