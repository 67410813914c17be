/**
 * The query string of a client's request as the upstream gets it: paging parameters
 * (`limit`, `after_id`, `pageSize`, `pageToken`) pass, a key given as `?key=` never does,
 * since the upstream takes the gateway's own key.
 */
export function passedQuery(url: string): string {
  const at = url.indexOf("?");
  if (at < 0) return "";
  const params = new URLSearchParams(url.slice(at + 1));
  params.delete("key");
  const query = params.toString();
  return query === "" ? "" : `?${query}`;
}
