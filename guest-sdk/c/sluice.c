/* The Sluice guest SDK for C: the implementation of sluice.h. Freestanding. */
#include "sluice.h"

#define PAGE 65536u

/* ---- host imports ---- */
__attribute__((import_module("sluice_v1"), import_name("log"))) void sluice__host_log(int32_t level, const char *ptr, int32_t len);
__attribute__((import_module("sluice_v1"), import_name("abort"))) _Noreturn void sluice__host_abort(const char *ptr, int32_t len);
__attribute__((import_module("sluice_v1"), import_name("kv_get"))) int32_t sluice__host_kv_get(const char *k, int32_t kl, uint8_t *out, int32_t cap);
__attribute__((import_module("sluice_v1"), import_name("kv_set"))) int32_t sluice__host_kv_set(const char *k, int32_t kl, const uint8_t *v, int32_t vl);
__attribute__((import_module("sluice_v1"), import_name("kv_delete"))) int32_t sluice__host_kv_delete(const char *k, int32_t kl);

/* clang lowers struct copies to memcpy/memset calls; with -mbulk-memory these are one
 * memory.copy / memory.fill each. */
void *memcpy(void *dst, const void *src, size_t n) { __builtin_memcpy(dst, src, n); return dst; }
void *memset(void *dst, int c, size_t n) { __builtin_memset(dst, c, n); return dst; }

static uint32_t cstrlen(const char *s) { uint32_t n = 0; while (s[n]) n++; return n; }

/* ---- the bump allocator ---- */
extern unsigned char __heap_base;
static size_t heap_next;

/* Called through a function pointer: the fuel meter charges a region's code whenever the
 * region is entered, branches or not (abi/README.md §11), and a function only direct calls
 * reach at its call sites, so an inline `memory.grow` (2,000 units) would be paid by
 * every allocation. A function called indirectly pays for itself, only when it runs. */
static size_t grow_pages(size_t pages) { return __builtin_wasm_memory_grow(0, pages); }
static size_t (*volatile grow)(size_t) = grow_pages;

void *sluice_malloc(size_t n) {
  if (heap_next == 0) heap_next = (size_t)&__heap_base;
  size_t start = (heap_next + 7) & ~(size_t)7;
  size_t end = start + n;
  if (end < start) return NULL;
  size_t have = __builtin_wasm_memory_size(0) * PAGE;
  if (end > have && grow((end - have + PAGE - 1) / PAGE) == (size_t)-1) return NULL;
  heap_next = end;
  return (void *)start;
}

static void *must_alloc(size_t n) {
  void *p = sluice_malloc(n);
  if (p == NULL) sluice_fatal("sluice: out of memory");
  return p;
}

/* ---- host functions ---- */
_Noreturn void sluice_fatal(const char *message) {
  uint32_t n = cstrlen(message);
  if (n > 1024) { n = 1024; while (n > 0 && (message[n] & 0xc0) == 0x80) n--; }
  sluice__host_abort(message, (int32_t)n);
}
static void log_at(int32_t level, const char *m) { sluice__host_log(level, m, (int32_t)cstrlen(m)); }
void sluice_log_debug(const char *m) { log_at(0, m); }
void sluice_log_info(const char *m) { log_at(1, m); }
void sluice_log_warn(const char *m) { log_at(2, m); }
void sluice_log_error(const char *m) { log_at(3, m); }

bool sluice_kv_get(const char *key, const uint8_t **out, uint32_t *len) {
  int32_t kl = (int32_t)cstrlen(key);
  uint8_t *buf = must_alloc(256);
  int32_t n = sluice__host_kv_get(key, kl, buf, 256);
  if (n < 0) return false;
  if (n > 256) {
    /* Too small: the host copied nothing and told us the size; ask again. */
    buf = must_alloc((size_t)n);
    n = sluice__host_kv_get(key, kl, buf, n);
    if (n < 0) return false;
  }
  *out = buf;
  *len = (uint32_t)n;
  return true;
}
int32_t sluice_kv_set(const char *key, const uint8_t *value, uint32_t len) {
  return sluice__host_kv_set(key, (int32_t)cstrlen(key), value, (int32_t)len);
}
bool sluice_kv_delete(const char *key) { return sluice__host_kv_delete(key, (int32_t)cstrlen(key)) == SLUICE_KV_OK; }

/* ---- values ---- */
static const sluice_value NIL = { SLUICE_NIL, 0, 0, { 0 } };
const sluice_value *sluice_nil_value(void) { return &NIL; }

static sluice_value *new_value(sluice_kind kind) {
  sluice_value *v = must_alloc(sizeof(sluice_value));
  v->kind = kind; v->len = 0; v->cap = 0; v->as.u = 0;
  return v;
}

bool sluice_str_eq(sluice_str s, const char *text) {
  for (uint32_t i = 0; i < s.len; i++) if (text[i] != s.ptr[i] || text[i] == 0) return false;
  return text[s.len] == 0;
}

const sluice_value *sluice_get(const sluice_value *v, const char *key) {
  if (v->kind != SLUICE_MAP) return &NIL;
  for (uint32_t i = 0; i < v->len; i++) if (sluice_str_eq(v->as.map.keys[i], key)) return v->as.map.vals[i];
  return &NIL;
}
const sluice_value *sluice_at(const sluice_value *v, uint32_t i) {
  return v->kind == SLUICE_ARRAY && i < v->len ? v->as.items[i] : &NIL;
}
uint32_t sluice_len(const sluice_value *v) { return v->kind == SLUICE_ARRAY || v->kind == SLUICE_MAP ? v->len : 0; }
sluice_str sluice_key_at(const sluice_value *map, uint32_t i) {
  if (map->kind == SLUICE_MAP && i < map->len) return map->as.map.keys[i];
  sluice_str none = { "", 0 };
  return none;
}
const sluice_value *sluice_value_at(const sluice_value *map, uint32_t i) {
  return map->kind == SLUICE_MAP && i < map->len ? map->as.map.vals[i] : &NIL;
}
bool sluice_has(const sluice_value *v, const char *key) {
  if (v->kind != SLUICE_MAP) return false;
  for (uint32_t i = 0; i < v->len; i++) if (sluice_str_eq(v->as.map.keys[i], key)) return true;
  return false;
}
bool sluice_as_bytes(const sluice_value *v, const uint8_t **ptr, uint32_t *len) {
  if (v->kind != SLUICE_BIN) return false;
  *ptr = (const uint8_t *)v->as.s;
  *len = v->len;
  return true;
}
bool sluice_is_nil(const sluice_value *v) { return v->kind == SLUICE_NIL; }
bool sluice_is_map(const sluice_value *v) { return v->kind == SLUICE_MAP; }
bool sluice_is_array(const sluice_value *v) { return v->kind == SLUICE_ARRAY; }
bool sluice_is_str(const sluice_value *v) { return v->kind == SLUICE_STR; }
static bool integral(double f) { return f == f && f - f == 0 && f == __builtin_trunc(f); }
bool sluice_is_int(const sluice_value *v) {
  return v->kind == SLUICE_INT || v->kind == SLUICE_UINT || (v->kind == SLUICE_FLOAT && integral(v->as.f));
}
int64_t sluice_as_int_or(const sluice_value *v, int64_t fallback) {
  if (v->kind == SLUICE_INT) return v->as.i;
  if (v->kind == SLUICE_FLOAT && integral(v->as.f) && v->as.f >= -9223372036854775808.0 && v->as.f < 9223372036854775808.0) return (int64_t)v->as.f;
  return fallback;
}
double sluice_as_float_or(const sluice_value *v, double fallback) {
  switch (v->kind) {
    case SLUICE_INT: return (double)v->as.i;
    case SLUICE_UINT: return (double)v->as.u;
    case SLUICE_FLOAT: return v->as.f;
    default: return fallback;
  }
}
bool sluice_as_bool_or(const sluice_value *v, bool fallback) { return v->kind == SLUICE_BOOL ? v->as.b : fallback; }
sluice_str sluice_as_str_or(const sluice_value *v, const char *fallback) {
  sluice_str s;
  if (v->kind == SLUICE_STR) { s.ptr = v->as.s; s.len = v->len; }
  else { s.ptr = fallback; s.len = cstrlen(fallback); }
  return s;
}
const char *sluice_cstr(sluice_str s) {
  char *out = must_alloc(s.len + 1);
  memcpy(out, s.ptr, s.len);
  out[s.len] = 0;
  return out;
}
/* A copy of text a caller passed: it may live on the caller's stack, gone before the reply
 * is encoded (after the hook returns). */
static const char *keep(const char *text) {
  sluice_str s = { text, cstrlen(text) };
  return sluice_cstr(s);
}

sluice_value *sluice_nil(void) { return new_value(SLUICE_NIL); }
sluice_value *sluice_bool(bool b) { sluice_value *v = new_value(SLUICE_BOOL); v->as.b = b; return v; }
sluice_value *sluice_int(int64_t i) { sluice_value *v = new_value(SLUICE_INT); v->as.i = i; return v; }
sluice_value *sluice_uint(uint64_t u) {
  if (u <= 0x7fffffffffffffffull) return sluice_int((int64_t)u);
  sluice_value *v = new_value(SLUICE_UINT); v->as.u = u; return v;
}
sluice_value *sluice_float(double f) { sluice_value *v = new_value(SLUICE_FLOAT); v->as.f = f; return v; }
sluice_value *sluice_string_n(const char *ptr, uint32_t len) {
  sluice_value *v = new_value(SLUICE_STR);
  char *copy = must_alloc(len);
  memcpy(copy, ptr, len);
  v->as.s = copy; v->len = len;
  return v;
}
sluice_value *sluice_string(const char *text) { return sluice_string_n(text, cstrlen(text)); }
sluice_value *sluice_bin(const uint8_t *ptr, uint32_t len) {
  sluice_value *v = sluice_string_n((const char *)ptr, len);
  v->kind = SLUICE_BIN;
  return v;
}
sluice_value *sluice_array(void) { return new_value(SLUICE_ARRAY); }
sluice_value *sluice_map(void) { return new_value(SLUICE_MAP); }

static void reserve(sluice_value *v, uint32_t need) {
  if (need <= v->cap) return;
  uint32_t cap = v->cap < 4 ? 4 : v->cap * 2;
  if (cap < need) cap = need;
  sluice_value **vals = must_alloc(cap * sizeof(sluice_value *));
  if (v->len) memcpy(vals, v->kind == SLUICE_ARRAY ? v->as.items : v->as.map.vals, v->len * sizeof(sluice_value *));
  if (v->kind == SLUICE_MAP) {
    sluice_str *keys = must_alloc(cap * sizeof(sluice_str));
    if (v->len) memcpy(keys, v->as.map.keys, v->len * sizeof(sluice_str));
    v->as.map.keys = keys;
    v->as.map.vals = vals;
  } else {
    v->as.items = vals;
  }
  v->cap = cap;
}
sluice_value *sluice_push(sluice_value *array, const sluice_value *item) {
  if (array->kind != SLUICE_ARRAY) return array;
  reserve(array, array->len + 1);
  array->as.items[array->len++] = (sluice_value *)item;
  return array;
}
static void map_append(sluice_value *map, sluice_str key, const sluice_value *item) {
  reserve(map, map->len + 1);
  map->as.map.keys[map->len] = key;
  map->as.map.vals[map->len++] = (sluice_value *)item;
}
sluice_value *sluice_set(sluice_value *map, const char *key, const sluice_value *item) {
  if (map->kind != SLUICE_MAP) return map;
  for (uint32_t i = 0; i < map->len; i++) {
    if (sluice_str_eq(map->as.map.keys[i], key)) { map->as.map.vals[i] = (sluice_value *)item; return map; }
  }
  sluice_str k = { keep(key), cstrlen(key) };
  map_append(map, k, item);
  return map;
}

/* ---- decoding ---- */
typedef struct { const uint8_t *b; uint32_t len, pos; const char *error; } reader;

static bool has(reader *r, uint64_t n) { return n <= (uint64_t)(r->len - r->pos); }
static void *fail(reader *r, const char *why) { if (r->error == NULL) r->error = why; return NULL; }
static bool be(reader *r, uint32_t n, uint64_t *out) {
  if (!has(r, n)) { fail(r, "truncated input"); return false; }
  uint64_t x = 0;
  for (uint32_t i = 0; i < n; i++) x = (x << 8) | r->b[r->pos + i];
  r->pos += n;
  *out = x;
  return true;
}
static bool valid_utf8(const uint8_t *s, uint32_t n) {
  uint32_t i = 0;
  while (i < n) {
    uint8_t c = s[i];
    if (c < 0x80) { i++; continue; }
    uint32_t extra; uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) { extra = 1; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { extra = 2; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { extra = 3; cp = c & 0x07; }
    else return false;
    if (n - i <= extra) return false;
    for (uint32_t k = 1; k <= extra; k++) {
      if ((s[i + k] & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3f);
    }
    if ((extra == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (extra == 3 && (cp < 0x10000 || cp > 0x10ffff))) return false;
    i += extra + 1;
  }
  return true;
}

static sluice_value *read_value(reader *r, uint32_t depth);

static sluice_value *read_bytes(reader *r, uint64_t n, sluice_kind kind) {
  if (!has(r, n)) return fail(r, kind == SLUICE_STR ? "string length exceeds the remaining input" : "binary length exceeds the remaining input");
  if (kind == SLUICE_STR && !valid_utf8(r->b + r->pos, (uint32_t)n)) return fail(r, "invalid UTF-8 in a string");
  sluice_value *v = new_value(kind);
  v->as.s = (const char *)(r->b + r->pos);
  v->len = (uint32_t)n;
  r->pos += (uint32_t)n;
  return v;
}
static sluice_value *read_array(reader *r, uint64_t n, uint32_t depth) {
  if (depth > SLUICE_MAX_DEPTH) return fail(r, "nesting deeper than 64");
  /* Each item takes at least one byte: refuse a count the input cannot hold before allocating. */
  if (!has(r, n)) return fail(r, "array count exceeds the remaining input");
  sluice_value *v = new_value(SLUICE_ARRAY);
  if (n) reserve(v, (uint32_t)n);
  for (uint64_t i = 0; i < n; i++) {
    sluice_value *item = read_value(r, depth + 1);
    if (item == NULL) return NULL;
    v->as.items[v->len++] = item;
  }
  return v;
}
static sluice_value *read_map(reader *r, uint64_t n, uint32_t depth) {
  if (depth > SLUICE_MAX_DEPTH) return fail(r, "nesting deeper than 64");
  if (!has(r, n * 2)) return fail(r, "map count exceeds the remaining input");
  sluice_value *v = new_value(SLUICE_MAP);
  if (n) reserve(v, (uint32_t)n);
  for (uint64_t i = 0; i < n; i++) {
    sluice_value *key = read_value(r, depth + 1);
    if (key == NULL) return NULL;
    if (key->kind != SLUICE_STR) return fail(r, "map keys must be strings");
    sluice_value *item = read_value(r, depth + 1);
    if (item == NULL) return NULL;
    sluice_str k = { key->as.s, key->len };
    map_append(v, k, item);
  }
  return v;
}
static sluice_value *read_value(reader *r, uint32_t depth) {
  if (!has(r, 1)) return fail(r, "truncated input");
  uint8_t t = r->b[r->pos++];
  uint64_t x;
  if (t <= 0x7f) return sluice_int(t);
  if (t >= 0xe0) return sluice_int((int8_t)t);
  if ((t & 0xf0) == 0x80) return read_map(r, t & 0x0f, depth);
  if ((t & 0xf0) == 0x90) return read_array(r, t & 0x0f, depth);
  if ((t & 0xe0) == 0xa0) return read_bytes(r, t & 0x1f, SLUICE_STR);
  switch (t) {
    case 0xc0: return sluice_nil();
    case 0xc2: return sluice_bool(false);
    case 0xc3: return sluice_bool(true);
    case 0xc4: return be(r, 1, &x) ? read_bytes(r, x, SLUICE_BIN) : NULL;
    case 0xc5: return be(r, 2, &x) ? read_bytes(r, x, SLUICE_BIN) : NULL;
    case 0xc6: return be(r, 4, &x) ? read_bytes(r, x, SLUICE_BIN) : NULL;
    case 0xca: { if (!be(r, 4, &x)) return NULL; uint32_t bits = (uint32_t)x; float f; memcpy(&f, &bits, 4); return sluice_float((double)f); }
    case 0xcb: { if (!be(r, 8, &x)) return NULL; double f; memcpy(&f, &x, 8); return sluice_float(f); }
    case 0xcc: return be(r, 1, &x) ? sluice_int((int64_t)x) : NULL;
    case 0xcd: return be(r, 2, &x) ? sluice_int((int64_t)x) : NULL;
    case 0xce: return be(r, 4, &x) ? sluice_int((int64_t)x) : NULL;
    case 0xcf: return be(r, 8, &x) ? sluice_uint(x) : NULL;
    case 0xd0: return be(r, 1, &x) ? sluice_int((int8_t)x) : NULL;
    case 0xd1: return be(r, 2, &x) ? sluice_int((int16_t)x) : NULL;
    case 0xd2: return be(r, 4, &x) ? sluice_int((int32_t)x) : NULL;
    case 0xd3: return be(r, 8, &x) ? sluice_int((int64_t)x) : NULL;
    case 0xd9: return be(r, 1, &x) ? read_bytes(r, x, SLUICE_STR) : NULL;
    case 0xda: return be(r, 2, &x) ? read_bytes(r, x, SLUICE_STR) : NULL;
    case 0xdb: return be(r, 4, &x) ? read_bytes(r, x, SLUICE_STR) : NULL;
    case 0xdc: return be(r, 2, &x) ? read_array(r, x, depth) : NULL;
    case 0xdd: return be(r, 4, &x) ? read_array(r, x, depth) : NULL;
    case 0xde: return be(r, 2, &x) ? read_map(r, x, depth) : NULL;
    case 0xdf: return be(r, 4, &x) ? read_map(r, x, depth) : NULL;
    case 0xc1: return fail(r, "reserved type byte 0xc1");
    default: return fail(r, "extension types are not used by the ABI");
  }
}

sluice_value *sluice_decode(const uint8_t *bytes, uint32_t len, const char **error) {
  reader r = { bytes, len, 0, NULL };
  sluice_value *v = read_value(&r, 1);
  if (v != NULL && r.pos != len) { v = NULL; r.error = "trailing bytes after the value"; }
  if (v == NULL && error) *error = r.error;
  return v;
}

/* ---- encoding ---- */
typedef struct { uint8_t *b; uint32_t len, cap; } writer;

static void put(writer *w, const void *src, uint32_t n) {
  if (w->len + n > w->cap) {
    uint32_t cap = w->cap * 2;
    if (cap < w->len + n) cap = w->len + n;
    uint8_t *b = must_alloc(cap);
    memcpy(b, w->b, w->len);
    w->b = b; w->cap = cap;
  }
  memcpy(w->b + w->len, src, n);
  w->len += n;
}
static void put_be(writer *w, uint8_t tag, uint64_t x, uint32_t n) {
  uint8_t buf[9];
  buf[0] = tag;
  for (uint32_t i = 0; i < n; i++) buf[1 + i] = (uint8_t)(x >> (8 * (n - 1 - i)));
  put(w, buf, n + 1);
}
static void put_byte(writer *w, uint8_t b) { put(w, &b, 1); }
static void put_int(writer *w, int64_t i) {
  if (i >= 0) {
    uint64_t u = (uint64_t)i;
    if (u < 0x80) put_byte(w, (uint8_t)u);
    else if (u <= 0xff) put_be(w, 0xcc, u, 1);
    else if (u <= 0xffff) put_be(w, 0xcd, u, 2);
    else if (u <= 0xffffffffu) put_be(w, 0xce, u, 4);
    else put_be(w, 0xd3, u, 8);
  } else if (i >= -32) put_byte(w, (uint8_t)i);
  else if (i >= -128) put_be(w, 0xd0, (uint64_t)i, 1);
  else if (i >= -32768) put_be(w, 0xd1, (uint64_t)i, 2);
  else if (i >= -2147483647 - 1) put_be(w, 0xd2, (uint64_t)i, 4);
  else put_be(w, 0xd3, (uint64_t)i, 8);
}
static void put_str(writer *w, const char *s, uint32_t n) {
  if (n <= 31) put_byte(w, (uint8_t)(0xa0 | n));
  else if (n <= 0xff) put_be(w, 0xd9, n, 1);
  else if (n <= 0xffff) put_be(w, 0xda, n, 2);
  else put_be(w, 0xdb, n, 4);
  put(w, s, n);
}
static void put_value(writer *w, const sluice_value *v) {
  uint32_t n = v->len;
  switch (v->kind) {
    case SLUICE_NIL: put_byte(w, 0xc0); break;
    case SLUICE_BOOL: put_byte(w, v->as.b ? 0xc3 : 0xc2); break;
    case SLUICE_INT: put_int(w, v->as.i); break;
    case SLUICE_UINT: if (v->as.u <= 0x7fffffffffffffffull) put_int(w, (int64_t)v->as.u); else put_be(w, 0xcf, v->as.u, 8); break;
    case SLUICE_FLOAT: { uint64_t bits; double f = v->as.f; memcpy(&bits, &f, 8); put_be(w, 0xcb, bits, 8); break; }
    case SLUICE_STR: put_str(w, v->as.s, n); break;
    case SLUICE_BIN:
      if (n <= 0xff) put_be(w, 0xc4, n, 1); else if (n <= 0xffff) put_be(w, 0xc5, n, 2); else put_be(w, 0xc6, n, 4);
      put(w, v->as.s, n);
      break;
    case SLUICE_ARRAY:
      if (n <= 15) put_byte(w, (uint8_t)(0x90 | n)); else if (n <= 0xffff) put_be(w, 0xdc, n, 2); else put_be(w, 0xdd, n, 4);
      for (uint32_t i = 0; i < n; i++) put_value(w, v->as.items[i]);
      break;
    case SLUICE_MAP:
      if (n <= 15) put_byte(w, (uint8_t)(0x80 | n)); else if (n <= 0xffff) put_be(w, 0xde, n, 2); else put_be(w, 0xdf, n, 4);
      for (uint32_t i = 0; i < n; i++) { put_str(w, v->as.map.keys[i].ptr, v->as.map.keys[i].len); put_value(w, v->as.map.vals[i]); }
      break;
  }
}
uint8_t *sluice_encode(const sluice_value *v, uint32_t *len) {
  writer w = { must_alloc(256), 0, 256 };
  put_value(&w, v);
  *len = w.len;
  return w.b;
}

/* ---- the request and views ---- */
static sluice_str str_at(const sluice_value *v, const char *key) { return sluice_as_str_or(sluice_get(v, key), ""); }

sluice_str sluice_tool_id(const sluice_request *req) { return str_at(req->payload, "tool_id"); }
sluice_str sluice_tool_name(const sluice_request *req) { return str_at(req->payload, "name"); }
const sluice_value *sluice_tool_arguments(const sluice_request *req) { return sluice_get(req->payload, "arguments"); }
sluice_str sluice_tool_call_id(const sluice_request *req) { return str_at(req->payload, "call_id"); }
sluice_str sluice_tool_status(const sluice_request *req) { return str_at(req->payload, "status"); }
const sluice_value *sluice_tool_result(const sluice_request *req) { return sluice_get(req->payload, "result"); }
const sluice_value *sluice_tool_view(const sluice_request *req) { return sluice_get(req->payload, "view"); }
const sluice_value *sluice_tool_error(const sluice_request *req) { return sluice_get(req->payload, "error"); }
double sluice_tool_duration_ms(const sluice_request *req) { return sluice_as_float_or(sluice_get(req->payload, "duration_ms"), -1); }
const sluice_value *sluice_tool_artifacts(const sluice_request *req) { return sluice_get(req->payload, "artifacts"); }
const sluice_value *sluice_chat_messages(const sluice_request *req) { return sluice_get(req->payload, "messages"); }
sluice_str sluice_chat_message_text(const sluice_request *req, uint32_t i) { return sluice_text_of(sluice_get(sluice_at(sluice_chat_messages(req), i), "content")); }
sluice_str sluice_chat_message_reasoning(const sluice_request *req, uint32_t i) { return str_at(sluice_at(sluice_chat_messages(req), i), "reasoning_content"); }
const sluice_value *sluice_chat_content_value(const sluice_request *req) { return sluice_get(req->payload, "content"); }
sluice_str sluice_chat_refusal(const sluice_request *req) { return str_at(req->payload, "refusal"); }
sluice_str sluice_chat_reasoning_content(const sluice_request *req) { return str_at(req->payload, "reasoning_content"); }
const sluice_value *sluice_chat_tool_calls(const sluice_request *req) { return sluice_get(req->payload, "tool_calls"); }
const sluice_value *sluice_chat_usage(const sluice_request *req) { return sluice_get(req->payload, "usage"); }
const sluice_value *sluice_chat_params(const sluice_request *req) { return sluice_get(req->payload, "params"); }
sluice_str sluice_chat_content(const sluice_request *req) { return sluice_text_of(sluice_get(req->payload, "content")); }
sluice_str sluice_chat_finish_reason(const sluice_request *req) { return str_at(req->payload, "finish_reason"); }
sluice_str sluice_chunk_delta(const sluice_request *req) { return str_at(req->payload, "delta"); }
int64_t sluice_chunk_index(const sluice_request *req) { return sluice_as_int_or(sluice_get(req->payload, "chunk_index"), -1); }
bool sluice_chunk_is_last(const sluice_request *req) { return sluice_as_bool_or(sluice_get(req->payload, "is_last"), false); }
sluice_str sluice_chunk_channel(const sluice_request *req) { return sluice_as_str_or(sluice_get(req->payload, "channel"), "content"); }
sluice_str sluice_chunk_request_id(const sluice_request *req) { return str_at(req->payload, "request_id"); }
const sluice_value *sluice_embedding_texts(const sluice_request *req) { return sluice_get(req->payload, "texts"); }
sluice_str sluice_embedding_text_at(const sluice_request *req, uint32_t i) { return sluice_as_str_or(sluice_at(sluice_embedding_texts(req), i), ""); }
sluice_str sluice_model(const sluice_request *req) { return str_at(req->payload, "model"); }

sluice_str sluice_text_of(const sluice_value *content) {
  if (content->kind != SLUICE_ARRAY) return sluice_as_str_or(content, "");
  uint32_t total = 0;
  for (uint32_t i = 0; i < content->len; i++) {
    const sluice_value *part = content->as.items[i];
    if (sluice_str_eq(str_at(part, "type"), "text")) total += str_at(part, "text").len + 1;
  }
  char *out = must_alloc(total + 1);
  uint32_t n = 0;
  for (uint32_t i = 0; i < content->len; i++) {
    const sluice_value *part = content->as.items[i];
    if (!sluice_str_eq(str_at(part, "type"), "text")) continue;
    if (n) out[n++] = '\n';
    sluice_str t = str_at(part, "text");
    memcpy(out + n, t.ptr, t.len);
    n += t.len;
  }
  sluice_str s = { out, n };
  return s;
}

static void read_request(const sluice_value *root, sluice_request *req) {
  const sluice_value *c = sluice_get(root, "context");
  req->abi = str_at(root, "abi");
  req->point = str_at(root, "point");
  req->payload = sluice_get(root, "payload");
  req->config = sluice_get(root, "config");
  req->carry = sluice_get(root, "carry");
  req->raw = root;
  req->context.space_id = str_at(c, "space_id");
  req->context.actor_id = str_at(c, "actor_id");
  req->context.run_id = str_at(c, "run_id");
  req->context.instance_id = str_at(c, "instance_id");
  req->context.operation_id = str_at(c, "operation_id");
  req->context.parent_operation_id = str_at(c, "parent_operation_id");
  req->context.call_id = str_at(c, "call_id");
  req->context.point = str_at(c, "point");
  req->context.purpose = str_at(c, "purpose");
  req->context.binding_id = str_at(c, "binding_id");
  req->context.published_revision = sluice_as_int_or(sluice_get(c, "published_revision"), -1);
  req->context.deadline = sluice_as_int_or(sluice_get(c, "deadline"), -1);
  req->context.raw = c;
}

/* ---- outcomes ---- */
struct sluice_outcome {
  const char *kind;
  sluice_value *patch;
  const char *code, *reason, *content, *hold;
  const sluice_value *result, *carry;
  sluice_value *annotations;
};
static sluice_outcome *outcome(const char *kind) {
  sluice_outcome *o = must_alloc(sizeof(sluice_outcome));
  o->kind = kind; o->patch = NULL; o->code = NULL; o->reason = NULL; o->content = NULL; o->hold = NULL;
  o->result = NULL; o->carry = NULL; o->annotations = NULL;
  return o;
}
sluice_outcome *sluice_continue(void) { return outcome("continue"); }
sluice_outcome *sluice_patch_input(void) { sluice_outcome *o = outcome("patch_input"); o->patch = sluice_array(); return o; }
sluice_outcome *sluice_patch_output(void) { sluice_outcome *o = outcome("patch_output"); o->patch = sluice_array(); return o; }
sluice_outcome *sluice_reject(const char *code, const char *reason) { sluice_outcome *o = outcome("reject"); o->code = keep(code); o->reason = keep(reason); return o; }
sluice_outcome *sluice_short_circuit(const sluice_value *result) { sluice_outcome *o = outcome("short_circuit"); o->result = result; return o; }
sluice_outcome *sluice_redact(const char *content) { sluice_outcome *o = outcome("redact"); o->content = keep(content); return o; }
sluice_outcome *sluice_block(const char *code, const char *reason) { sluice_outcome *o = outcome("block"); o->code = keep(code); o->reason = keep(reason); return o; }
sluice_outcome *sluice_ask(const char *reason) { sluice_outcome *o = outcome("ask"); o->reason = keep(reason); return o; }
sluice_outcome *sluice_ask_code(const char *code, const char *reason) { sluice_outcome *o = sluice_ask(reason); o->code = keep(code); return o; }

static sluice_outcome *op(sluice_outcome *o, const char *name, const char *path, const sluice_value *value) {
  if (o->patch == NULL) sluice_fatal("sluice: replace/add/remove need sluice_patch_input() or sluice_patch_output()");
  sluice_value *m = sluice_set(sluice_set(sluice_map(), "op", sluice_string(name)), "path", sluice_string(path));
  if (value != NULL) sluice_set(m, "value", value);
  sluice_push(o->patch, m);
  return o;
}
sluice_outcome *sluice_replace(sluice_outcome *o, const char *path, const sluice_value *v) { return op(o, "replace", path, v); }
sluice_outcome *sluice_add(sluice_outcome *o, const char *path, const sluice_value *v) { return op(o, "add", path, v); }
sluice_outcome *sluice_remove(sluice_outcome *o, const char *path) { return op(o, "remove", path, NULL); }
sluice_outcome *sluice_hold(sluice_outcome *o, const char *suffix) { o->hold = keep(suffix); return o; }
sluice_outcome *sluice_with_carry(sluice_outcome *o, const sluice_value *carry) { o->carry = carry; return o; }
sluice_outcome *sluice_annotate(sluice_outcome *o, const char *key, const sluice_value *value) {
  if (o->annotations == NULL) o->annotations = sluice_map();
  sluice_set(o->annotations, key, value);
  return o;
}
static sluice_value *reply_value(const sluice_outcome *o, const char *abi) {
  sluice_value *m = sluice_set(sluice_set(sluice_map(), "abi", sluice_string(abi)), "outcome", sluice_string(o->kind));
  if (o->patch) sluice_set(m, "patch", o->patch);
  if (o->code) sluice_set(m, "code", sluice_string(o->code));
  if (o->reason) sluice_set(m, "reason", sluice_string(o->reason));
  if (o->content) sluice_set(m, "content", sluice_string(o->content));
  if (o->hold) sluice_set(m, "hold", sluice_string(o->hold));
  if (o->carry) sluice_set(m, "carry", o->carry);
  if (o->annotations) sluice_set(m, "annotations", o->annotations);
  if (o->result) sluice_set(m, "result", o->result);
  return m;
}
sluice_value *sluice_outcome_value(const sluice_outcome *o) { return reply_value(o, SLUICE_ABI); }

/* ---- exports ---- */
int32_t sluice__alloc(int32_t len) {
  if (len < 0) return 0;
  return (int32_t)(size_t)sluice_malloc((size_t)len);
}

int64_t sluice__handle(int32_t ptr, int32_t len, sluice_hook hook) { return sluice__handle_abi(ptr, len, hook, SLUICE_ABI); }

int64_t sluice__handle_abi(int32_t ptr, int32_t len, sluice_hook hook, const char *abi) {
  const char *error = NULL;
  const sluice_value *root = sluice_decode((const uint8_t *)(size_t)ptr, (uint32_t)len, &error);
  if (root == NULL) {
    const char *prefix = "sluice: malformed request: ";
    uint32_t a = cstrlen(prefix), b = cstrlen(error);
    char *m = must_alloc(a + b + 1);
    memcpy(m, prefix, a); memcpy(m + a, error, b); m[a + b] = 0;
    sluice_fatal(m);
  }
  if (root->kind != SLUICE_MAP) sluice_fatal("sluice: malformed request: not a map");
  sluice_request req;
  read_request(root, &req);
  uint32_t n;
  sluice_outcome *o = hook(&req);
  /* Address 0 is readable in wasm: without this check a NULL outcome is encoded from
   * whatever lies there, and the host refuses a reply that names no hook's mistake. */
  if (o == NULL) sluice_fatal("sluice: the hook returned NULL instead of an outcome");
  uint8_t *reply = sluice_encode(reply_value(o, abi), &n);
  return (int64_t)(((uint64_t)(size_t)reply << 32) | n);
}
