//! Strict msgpack (abi/README.md §4): the decoder checks every length against the bytes
//! that remain, refuses extensions, `0xc1`, non-string map keys, invalid UTF-8, nesting
//! over 64 and trailing bytes; the encoder writes the smallest form of every integer,
//! string, binary, array and map header, and floats as float64.

use crate::value::Value;

/// The deepest nesting a decoded value may have (the top-level map is depth 1).
pub const MAX_DEPTH: usize = 64;

/// Decodes exactly one value that spans all of `bytes`.
pub fn decode(bytes: &[u8]) -> Result<Value, &'static str> {
    let mut r = Reader { b: bytes, pos: 0 };
    let v = r.value(1)?;
    if r.pos != bytes.len() {
        return Err("trailing bytes after the value");
    }
    Ok(v)
}

/// Encodes `v` in the smallest form.
pub fn encode(v: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    write(&mut out, v);
    out
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn has(&self, n: u64) -> bool {
        n <= (self.b.len() - self.pos) as u64
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], &'static str> {
        if !self.has(n as u64) {
            return Err("truncated input");
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn uint(&mut self, n: usize) -> Result<u64, &'static str> {
        let s = self.take(n)?;
        let mut x: u64 = 0;
        for &byte in s {
            x = (x << 8) | byte as u64;
        }
        Ok(x)
    }

    fn value(&mut self, depth: usize) -> Result<Value, &'static str> {
        let t = self.take(1)?[0];
        match t {
            0x00..=0x7f => Ok(Value::Int(t as i64)),
            0x80..=0x8f => self.map((t & 0x0f) as u64, depth),
            0x90..=0x9f => self.array((t & 0x0f) as u64, depth),
            0xa0..=0xbf => self.str((t & 0x1f) as u64),
            0xc0 => Ok(Value::Nil),
            0xc2 => Ok(Value::Bool(false)),
            0xc3 => Ok(Value::Bool(true)),
            0xc4 => { let n = self.uint(1)?; self.bin(n) }
            0xc5 => { let n = self.uint(2)?; self.bin(n) }
            0xc6 => { let n = self.uint(4)?; self.bin(n) }
            0xca => Ok(Value::Float(f32::from_bits(self.uint(4)? as u32) as f64)),
            0xcb => Ok(Value::Float(f64::from_bits(self.uint(8)?))),
            0xcc => Ok(Value::Int(self.uint(1)? as i64)),
            0xcd => Ok(Value::Int(self.uint(2)? as i64)),
            0xce => Ok(Value::Int(self.uint(4)? as i64)),
            0xcf => Ok(Value::uint(self.uint(8)?)),
            0xd0 => Ok(Value::Int(self.uint(1)? as u8 as i8 as i64)),
            0xd1 => Ok(Value::Int(self.uint(2)? as u16 as i16 as i64)),
            0xd2 => Ok(Value::Int(self.uint(4)? as u32 as i32 as i64)),
            0xd3 => Ok(Value::Int(self.uint(8)? as i64)),
            0xd9 => { let n = self.uint(1)?; self.str(n) }
            0xda => { let n = self.uint(2)?; self.str(n) }
            0xdb => { let n = self.uint(4)?; self.str(n) }
            0xdc => { let n = self.uint(2)?; self.array(n, depth) }
            0xdd => { let n = self.uint(4)?; self.array(n, depth) }
            0xde => { let n = self.uint(2)?; self.map(n, depth) }
            0xdf => { let n = self.uint(4)?; self.map(n, depth) }
            0xe0..=0xff => Ok(Value::Int(t as i8 as i64)),
            0xc1 => Err("reserved type byte 0xc1"),
            _ => Err("extension types are not used by the ABI"),
        }
    }

    fn str(&mut self, n: u64) -> Result<Value, &'static str> {
        if !self.has(n) {
            return Err("string length exceeds the remaining input");
        }
        let s = self.take(n as usize)?;
        match std::str::from_utf8(s) {
            Ok(text) => Ok(Value::Str(String::from(text))),
            Err(_) => Err("invalid UTF-8 in a string"),
        }
    }

    fn bin(&mut self, n: u64) -> Result<Value, &'static str> {
        if !self.has(n) {
            return Err("binary length exceeds the remaining input");
        }
        Ok(Value::Bin(self.take(n as usize)?.to_vec()))
    }

    fn array(&mut self, n: u64, depth: usize) -> Result<Value, &'static str> {
        if depth > MAX_DEPTH {
            return Err("nesting deeper than 64");
        }
        // Each item takes at least one byte: refuse a count the input cannot hold before allocating.
        if !self.has(n) {
            return Err("array count exceeds the remaining input");
        }
        let mut items = Vec::with_capacity(n as usize);
        for _ in 0..n {
            items.push(self.value(depth + 1)?);
        }
        Ok(Value::Array(items))
    }

    fn map(&mut self, n: u64, depth: usize) -> Result<Value, &'static str> {
        if depth > MAX_DEPTH {
            return Err("nesting deeper than 64");
        }
        if !self.has(n.saturating_mul(2)) {
            return Err("map count exceeds the remaining input");
        }
        let mut entries = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let key = match self.value(depth + 1)? {
                Value::Str(s) => s,
                _ => return Err("map keys must be strings"),
            };
            let item = self.value(depth + 1)?;
            entries.push((key, item));
        }
        Ok(Value::Map(entries))
    }
}

fn be(out: &mut Vec<u8>, x: u64, n: usize) {
    for i in (0..n).rev() {
        out.push((x >> (8 * i)) as u8);
    }
}

fn write_int(out: &mut Vec<u8>, i: i64) {
    if i >= 0 {
        let u = i as u64;
        if u < 0x80 { out.push(u as u8) }
        else if u <= 0xff { out.push(0xcc); be(out, u, 1) }
        else if u <= 0xffff { out.push(0xcd); be(out, u, 2) }
        else if u <= 0xffff_ffff { out.push(0xce); be(out, u, 4) }
        else { out.push(0xd3); be(out, u, 8) }
    } else if i >= -32 { out.push(i as u8) }
    else if i >= -128 { out.push(0xd0); be(out, i as u64, 1) }
    else if i >= -32768 { out.push(0xd1); be(out, i as u64, 2) }
    else if i >= -2147483648 { out.push(0xd2); be(out, i as u64, 4) }
    else { out.push(0xd3); be(out, i as u64, 8) }
}

fn header(out: &mut Vec<u8>, n: usize, fix: u8, fix_max: usize, b8: u8, b16: u8, b32: u8) {
    if n <= fix_max && fix != 0 { out.push(fix | n as u8) }
    else if n <= 0xff && b8 != 0 { out.push(b8); be(out, n as u64, 1) }
    else if n <= 0xffff { out.push(b16); be(out, n as u64, 2) }
    else { out.push(b32); be(out, n as u64, 4) }
}

fn write(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Nil => out.push(0xc0),
        Value::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
        Value::Int(i) => write_int(out, *i),
        Value::UInt(u) => {
            if *u <= i64::MAX as u64 { write_int(out, *u as i64) } else { out.push(0xcf); be(out, *u, 8) }
        }
        Value::Float(f) => { out.push(0xcb); be(out, f.to_bits(), 8) }
        Value::Str(s) => { header(out, s.len(), 0xa0, 31, 0xd9, 0xda, 0xdb); out.extend_from_slice(s.as_bytes()) }
        Value::Bin(b) => { header(out, b.len(), 0, 0, 0xc4, 0xc5, 0xc6); out.extend_from_slice(b) }
        Value::Array(items) => {
            header(out, items.len(), 0x90, 15, 0, 0xdc, 0xdd);
            for item in items { write(out, item) }
        }
        Value::Map(entries) => {
            header(out, entries.len(), 0x80, 15, 0, 0xde, 0xdf);
            for (k, item) in entries {
                header(out, k.len(), 0xa0, 31, 0xd9, 0xda, 0xdb);
                out.extend_from_slice(k.as_bytes());
                write(out, item);
            }
        }
    }
}
