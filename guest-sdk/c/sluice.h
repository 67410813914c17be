/*
 * The Sluice guest SDK for C: freestanding (no libc), for clang --target=wasm32 and
 * wasm-ld. A hook is one function from a request to an outcome, exported with
 * SLUICE_EXPORT_HOOK. The contract it implements is abi/README.md; build flags are in
 * guest-sdk/c/README.md (`sluice build` passes them).
 *
 *   #include "sluice.h"
 *   static sluice_outcome *hook(const sluice_request *req) {
 *     int64_t max = sluice_as_int_or(sluice_get(req->config, "max_limit"), 100);
 *     const sluice_value *limit = sluice_get(sluice_tool_arguments(req), "limit");
 *     if (!sluice_is_int(limit) || sluice_as_float_or(limit, 0) <= (double)max) return sluice_continue();
 *     return sluice_replace(sluice_patch_input(), "/arguments/limit", sluice_int(max));
 *   }
 *   SLUICE_EXPORT_HOOK(hook)
 *
 * Memory: every invocation runs on a fresh instance (abi/README.md §1), so the SDK
 * allocates from a bump allocator and never frees. Values decoded from the request point
 * into the request's bytes (strings are not NUL-terminated: use sluice_str). Every builder
 * copies the text it is given (string values, map keys, reasons, codes, content, holds),
 * so a hook may build them from a buffer on its own stack.
 */
#ifndef SLUICE_H
#define SLUICE_H

/* Compiler-provided freestanding headers (clang's own, no libc). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The ABI version this SDK speaks: its marker export and every reply's "abi". */
#define SLUICE_ABI "1.2"
#define SLUICE_ABI_MARKER sluice_abi_v1_2
/* The deepest nesting a decoded value may have (the top-level map is depth 1). */
#define SLUICE_MAX_DEPTH 64

/* A UTF-8 string: not NUL-terminated. */
typedef struct { const char *ptr; uint32_t len; } sluice_str;

typedef enum {
  SLUICE_NIL, SLUICE_BOOL, SLUICE_INT, SLUICE_UINT, SLUICE_FLOAT,
  SLUICE_STR, SLUICE_BIN, SLUICE_ARRAY, SLUICE_MAP
} sluice_kind;

/* One msgpack value. Integers that fit in int64 are SLUICE_INT; only values above
 * INT64_MAX are SLUICE_UINT. Maps keep their keys in insertion order. */
typedef struct sluice_value sluice_value;
struct sluice_value {
  sluice_kind kind;
  uint32_t len; /* bytes of STR/BIN, items of ARRAY, entries of MAP */
  uint32_t cap;
  union {
    bool b;
    int64_t i;
    uint64_t u;
    double f;
    const char *s;          /* STR, BIN */
    sluice_value **items;   /* ARRAY */
    struct { sluice_str *keys; sluice_value **vals; } map;
  } as;
};

/* ---- memory ---- */
/* n bytes aligned to 8, or NULL when the memory limit is reached. Never freed. */
void *sluice_malloc(size_t n);

/* ---- values: reading. Lookups never return NULL: a missing key, an index out of range
 * or the wrong kind gives a nil value. ---- */
const sluice_value *sluice_nil_value(void);
const sluice_value *sluice_get(const sluice_value *v, const char *key);
const sluice_value *sluice_at(const sluice_value *v, uint32_t i);
uint32_t sluice_len(const sluice_value *v);
/* A map's i-th key ("" past the end or on a non-map) and i-th value (nil), in order. */
sluice_str sluice_key_at(const sluice_value *map, uint32_t i);
const sluice_value *sluice_value_at(const sluice_value *map, uint32_t i);
/* True when a map has the key (even with a nil value). */
bool sluice_has(const sluice_value *v, const char *key);
/* A binary value's bytes in *ptr and *len; false when v is not binary. */
bool sluice_as_bytes(const sluice_value *v, const uint8_t **ptr, uint32_t *len);
bool sluice_is_nil(const sluice_value *v);
bool sluice_is_map(const sluice_value *v);
bool sluice_is_array(const sluice_value *v);
bool sluice_is_str(const sluice_value *v);
/* True for an integer and for a float64 with an integral value (the host sends a number
 * that is not a 32-bit integer as float64: abi/README.md §4). */
bool sluice_is_int(const sluice_value *v);
int64_t sluice_as_int_or(const sluice_value *v, int64_t fallback);
double sluice_as_float_or(const sluice_value *v, double fallback);
bool sluice_as_bool_or(const sluice_value *v, bool fallback);
/* The string, or `fallback` (a NUL-terminated literal) when v is not a string. */
sluice_str sluice_as_str_or(const sluice_value *v, const char *fallback);
/* True when s holds exactly the NUL-terminated text. */
bool sluice_str_eq(sluice_str s, const char *text);
/* s as a NUL-terminated copy. */
const char *sluice_cstr(sluice_str s);

/* ---- values: building ---- */
sluice_value *sluice_nil(void);
sluice_value *sluice_bool(bool b);
sluice_value *sluice_int(int64_t i);
sluice_value *sluice_uint(uint64_t u);
sluice_value *sluice_float(double f);
sluice_value *sluice_string(const char *text);             /* NUL-terminated */
sluice_value *sluice_string_n(const char *ptr, uint32_t len);
sluice_value *sluice_bin(const uint8_t *ptr, uint32_t len);
sluice_value *sluice_array(void);
sluice_value *sluice_map(void);
/* Appends to an array; returns the array. */
sluice_value *sluice_push(sluice_value *array, const sluice_value *item);
/* Sets key of a map (replacing an existing entry); returns the map. */
sluice_value *sluice_set(sluice_value *map, const char *key, const sluice_value *item);

/* ---- msgpack (abi/README.md §4) ---- */
/* Decodes exactly one value spanning all of the bytes; NULL and *error set on failure. */
sluice_value *sluice_decode(const uint8_t *bytes, uint32_t len, const char **error);
/* Encodes v in the smallest form; *len receives the size. */
uint8_t *sluice_encode(const sluice_value *v, uint32_t *len);

/* ---- the request (abi/README.md §4, §5) ---- */
typedef struct {
  sluice_str space_id, actor_id, run_id, instance_id, operation_id, parent_operation_id,
      call_id, point, purpose, binding_id;
  int64_t published_revision; /* -1 when absent */
  int64_t deadline;           /* ms since the Unix epoch; -1 when absent */
  const sluice_value *raw;
} sluice_context;

typedef struct {
  sluice_str abi;    /* the host's version, e.g. "1.1" */
  sluice_str point;  /* e.g. "tool.before" */
  sluice_context context;
  const sluice_value *payload; /* only the fields the plugin was granted */
  const sluice_value *config;  /* validated by the host against the plugin's schema */
  const sluice_value *carry;   /* at an after or chunk point: the paired before hook's carry; else nil */
  const sluice_value *raw;     /* the whole request map: keys a later ABI minor adds are read here */
} sluice_request;

/* ---- typed views (absent fields read as "", -1, false or nil) ---- */
/* tool.before and tool.after */
sluice_str sluice_tool_id(const sluice_request *req);
sluice_str sluice_tool_name(const sluice_request *req);
const sluice_value *sluice_tool_arguments(const sluice_request *req);
sluice_str sluice_tool_call_id(const sluice_request *req);
/* tool.after: "succeeded" or "failed"; the real result; the model's view (patchable); the error */
sluice_str sluice_tool_status(const sluice_request *req);
const sluice_value *sluice_tool_result(const sluice_request *req);
const sluice_value *sluice_tool_view(const sluice_request *req);
const sluice_value *sluice_tool_error(const sluice_request *req);
/* tool.after: the tool's duration in ms (-1 when absent); what it reported it did (read-only, nil when nothing) */
double sluice_tool_duration_ms(const sluice_request *req);
const sluice_value *sluice_tool_artifacts(const sluice_request *req);
/* model.chat.before */
const sluice_value *sluice_chat_messages(const sluice_request *req);
const sluice_value *sluice_chat_params(const sluice_request *req);
/* message i's text (its content string, or its text parts joined with "\n") and reasoning text; "" when none */
sluice_str sluice_chat_message_text(const sluice_request *req, uint32_t i);
sluice_str sluice_chat_message_reasoning(const sluice_request *req, uint32_t i);
/* model.chat.after: the answer's text (a string, or its text parts joined with "\n") */
sluice_str sluice_chat_content(const sluice_request *req);
/* the content as it is: a string, nil, or a list of parts */
const sluice_value *sluice_chat_content_value(const sluice_request *req);
sluice_str sluice_chat_refusal(const sluice_request *req);
sluice_str sluice_chat_reasoning_content(const sluice_request *req);
const sluice_value *sluice_chat_tool_calls(const sluice_request *req);
sluice_str sluice_chat_finish_reason(const sluice_request *req);
const sluice_value *sluice_chat_usage(const sluice_request *req);
/* model.chat.chunk */
sluice_str sluice_chunk_delta(const sluice_request *req);
int64_t sluice_chunk_index(const sluice_request *req);
bool sluice_chunk_is_last(const sluice_request *req);
sluice_str sluice_chunk_channel(const sluice_request *req); /* "content", "reasoning" or "refusal" */
sluice_str sluice_chunk_request_id(const sluice_request *req);
/* model.embedding.before: the texts, and text i ("" when absent) */
const sluice_value *sluice_embedding_texts(const sluice_request *req);
sluice_str sluice_embedding_text_at(const sluice_request *req, uint32_t i);
/* Either point's model */
sluice_str sluice_model(const sluice_request *req);
/* Content as text: a string as it is, a list of parts as its text parts joined with "\n". */
sluice_str sluice_text_of(const sluice_value *content);

/* ---- outcomes (abi/README.md §4): constructors, then chainable modifiers ---- */
typedef struct sluice_outcome sluice_outcome;
sluice_outcome *sluice_continue(void);
sluice_outcome *sluice_patch_input(void);   /* before points */
sluice_outcome *sluice_patch_output(void);  /* after points */
/* code matches [a-z0-9_.-]{1,64}; reason is at most 1024 bytes */
sluice_outcome *sluice_reject(const char *code, const char *reason);
sluice_outcome *sluice_short_circuit(const sluice_value *result);
sluice_outcome *sluice_redact(const char *content);
sluice_outcome *sluice_block(const char *code, const char *reason);
/* ABI 1.2, tool.before: ask for someone's approval first; the host does not run the
 * operation (HOOK_ASKED) and a coding agent asks its user where it can. reason: at most 1024 bytes */
sluice_outcome *sluice_ask(const char *reason);
/* ask with a stable machine code ([a-z0-9_.-]{1,64}, as for reject), reported as hookCode in HOOK_ASKED's details */
sluice_outcome *sluice_ask_code(const char *code, const char *reason);
/* JSON Patch operations at a JSON Pointer rooted at the payload ("/-" appends). */
sluice_outcome *sluice_replace(sluice_outcome *o, const char *path, const sluice_value *value);
sluice_outcome *sluice_add(sluice_outcome *o, const char *path, const sluice_value *value);
sluice_outcome *sluice_remove(sluice_outcome *o, const char *path);
sluice_outcome *sluice_hold(sluice_outcome *o, const char *suffix);        /* model.chat.chunk */
sluice_outcome *sluice_with_carry(sluice_outcome *o, const sluice_value *carry);
sluice_outcome *sluice_annotate(sluice_outcome *o, const char *key, const sluice_value *value);
/* The reply map, keys in the spec's order with `result` last. */
sluice_value *sluice_outcome_value(const sluice_outcome *o);

/* ---- host functions (abi/README.md §3) ---- */
/* Ends the invocation with GUEST_ABORTED and the message. Never returns. */
_Noreturn void sluice_fatal(const char *message);
/* Messages the host keeps with the invocation (64 of at most 1024 bytes). */
void sluice_log_debug(const char *message);
void sluice_log_info(const char *message);
void sluice_log_warn(const char *message);
void sluice_log_error(const char *message);
/* The key-value store (capability `kv`; imported only when a hook calls it). */
#define SLUICE_KV_OK 0
#define SLUICE_KV_NOT_FOUND (-1)
#define SLUICE_KV_TOO_LARGE (-2)
#define SLUICE_KV_QUOTA (-3)
/* The value's bytes (in *out, *len), or false when there is no such key. */
bool sluice_kv_get(const char *key, const uint8_t **out, uint32_t *len);
int32_t sluice_kv_set(const char *key, const uint8_t *value, uint32_t len);
bool sluice_kv_delete(const char *key);

/* ---- exports (abi/README.md §2) ---- */
typedef sluice_outcome *(*sluice_hook)(const sluice_request *req);
int32_t sluice__alloc(int32_t len);
int64_t sluice__handle(int32_t ptr, int32_t len, sluice_hook hook);
/* sluice_handle of a guest whose marker says `abi`: its replies say that version. */
int64_t sluice__handle_abi(int32_t ptr, int32_t len, sluice_hook hook, const char *abi);

/* Defines the exports for ABI 1.2 (marker sluice_abi_v1_2). */
#define SLUICE_EXPORT_HOOK(fn) SLUICE_EXPORT_HOOK_ABI(fn, 1, 2)

/* Defines the exports for ABI <major>.<minor>, e.g. SLUICE_EXPORT_HOOK_ABI(hook, 1, 0): the
 * host shows the guest that minor's payloads (a 1.0 guest sees every chat text as a string
 * content, abi/README.md §4.4) and its replies say that version, so ask (1.2) is refused
 * from an older one. hook.yaml's `abi` must say the same version. */
#define SLUICE_EXPORT_HOOK_ABI(fn, major, minor)                                                  \
  __attribute__((export_name("sluice_abi_v" #major "_" #minor))) void sluice_abi_v##major##_##minor(void) {} \
  __attribute__((export_name("sluice_alloc"))) int32_t sluice_alloc(int32_t len) {              \
    return sluice__alloc(len);                                                                  \
  }                                                                                             \
  __attribute__((export_name("sluice_handle"))) int64_t sluice_handle(int32_t ptr, int32_t len) { \
    return sluice__handle_abi(ptr, len, fn, #major "." #minor);                                 \
  }

#endif
