//! A dynamic msgpack value: what the host sends and what a hook returns.

/// One msgpack value. Integers that fit in `i64` are `Int`; only values above
/// `i64::MAX` are `UInt`. Maps keep their keys in insertion order.
///
/// Lookups never fail: `get` on a missing key or on a non-map gives `&Value::Nil`, so
/// `v.get("a").get("b").is_nil()` is safe. The `as_x_or(fallback)` forms return the fallback
/// when the kind is wrong.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Nil,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Bin(Vec<u8>),
    Array(Vec<Value>),
    Map(Vec<(String, Value)>),
}

static NIL: Value = Value::Nil;

impl Value {
    /// A string value.
    pub fn str(s: &str) -> Value {
        Value::Str(String::from(s))
    }
    /// An empty map, to fill with [`Value::set`].
    pub fn map() -> Value {
        Value::Map(Vec::new())
    }
    /// An empty array, to fill with [`Value::push`].
    pub fn array() -> Value {
        Value::Array(Vec::new())
    }
    /// An unsigned integer: stored (and written) as `Int` up to `i64::MAX`.
    pub fn uint(u: u64) -> Value {
        if u <= i64::MAX as u64 { Value::Int(u as i64) } else { Value::UInt(u) }
    }

    pub fn is_nil(&self) -> bool { matches!(self, Value::Nil) }
    pub fn is_map(&self) -> bool { matches!(self, Value::Map(_)) }
    pub fn is_array(&self) -> bool { matches!(self, Value::Array(_)) }
    pub fn is_str(&self) -> bool { matches!(self, Value::Str(_)) }
    /// True for an integer, and for a float64 with an integral value (the host sends a
    /// number that is not a 32-bit integer as float64: abi/README.md §4).
    pub fn is_int(&self) -> bool {
        match self {
            Value::Int(_) | Value::UInt(_) => true,
            Value::Float(f) => f.is_finite() && *f == f.trunc(),
            _ => false,
        }
    }
    pub fn is_number(&self) -> bool { matches!(self, Value::Int(_) | Value::UInt(_) | Value::Float(_)) }

    /// The value at `key` of a map, or `&Value::Nil`.
    pub fn get(&self, key: &str) -> &Value {
        if let Value::Map(entries) = self {
            for (k, v) in entries {
                if k == key { return v; }
            }
        }
        &NIL
    }
    /// True when a map has `key` (even with a Nil value).
    pub fn has(&self, key: &str) -> bool {
        self.entries().iter().any(|(k, _)| k == key)
    }
    /// Item `i` of an array, or `&Value::Nil`.
    pub fn at(&self, i: usize) -> &Value {
        match self {
            Value::Array(items) => items.get(i).unwrap_or(&NIL),
            _ => &NIL,
        }
    }
    /// Items of an array or entries of a map; 0 otherwise.
    pub fn len(&self) -> usize {
        match self {
            Value::Array(items) => items.len(),
            Value::Map(entries) => entries.len(),
            _ => 0,
        }
    }
    pub fn is_empty(&self) -> bool { self.len() == 0 }
    /// The array's items (empty for any other kind).
    pub fn items(&self) -> &[Value] {
        match self { Value::Array(items) => items, _ => &[] }
    }
    /// The map's entries (empty for any other kind).
    pub fn entries(&self) -> &[(String, Value)] {
        match self { Value::Map(entries) => entries, _ => &[] }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self { Value::Str(s) => Some(s), _ => None }
    }
    /// A binary value's bytes, or None.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self { Value::Bin(b) => Some(b), _ => None }
    }
    pub fn as_str_or<'a>(&'a self, fallback: &'a str) -> &'a str {
        self.as_str().unwrap_or(fallback)
    }
    pub fn as_bool_or(&self, fallback: bool) -> bool {
        match self { Value::Bool(b) => *b, _ => fallback }
    }
    /// The integer (an integral float64 within `i64` included), or None.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            Value::Float(f) if f.is_finite() && *f == f.trunc() && *f >= -9.223372036854776e18 && *f < 9.223372036854776e18 => Some(*f as i64),
            _ => None,
        }
    }
    pub fn as_int_or(&self, fallback: i64) -> i64 { self.as_int().unwrap_or(fallback) }
    /// Any number as f64, or None.
    pub fn as_float(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::UInt(u) => Some(*u as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }
    pub fn as_float_or(&self, fallback: f64) -> f64 { self.as_float().unwrap_or(fallback) }

    /// Sets `key` of a map (replacing an existing entry) and returns the map, for chaining.
    /// On a non-map it does nothing.
    pub fn set(mut self, key: &str, value: Value) -> Value {
        self.insert(key, value);
        self
    }
    /// Sets `key` of a map in place.
    pub fn insert(&mut self, key: &str, value: Value) {
        if let Value::Map(entries) = self {
            for entry in entries.iter_mut() {
                if entry.0 == key { entry.1 = value; return; }
            }
            entries.push((String::from(key), value));
        }
    }
    /// Appends to an array and returns it, for chaining. On a non-array it does nothing.
    pub fn push(mut self, value: Value) -> Value {
        if let Value::Array(items) = &mut self { items.push(value); }
        self
    }
}

impl From<&str> for Value { fn from(s: &str) -> Value { Value::str(s) } }
impl From<String> for Value { fn from(s: String) -> Value { Value::Str(s) } }
impl From<bool> for Value { fn from(b: bool) -> Value { Value::Bool(b) } }
impl From<i64> for Value { fn from(i: i64) -> Value { Value::Int(i) } }
impl From<i32> for Value { fn from(i: i32) -> Value { Value::Int(i as i64) } }
impl From<f64> for Value { fn from(f: f64) -> Value { Value::Float(f) } }
