//! Typed, read-only views of the payloads of the main points. A field the plugin was not
//! granted reads as ""/-1/false/Nil; `payload` keeps the whole map.
use crate::request::Request;
use crate::value::Value;

macro_rules! view {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name<'a> {
            pub payload: &'a Value,
        }
        impl<'a> $name<'a> {
            pub fn of(req: &'a Request) -> $name<'a> { $name { payload: &req.payload } }
            fn s(&self, key: &str) -> &'a str { self.payload.get(key).as_str_or("") }
            #[allow(dead_code)]
            fn v(&self, key: &str) -> &'a Value { self.payload.get(key) }
        }
    };
}

view!(/// `tool.before`: a tool is about to be called.
    ToolBefore);
view!(/// `tool.after`: a tool returned.
    ToolAfter);
view!(/// `model.chat.before`: a chat completion is about to be requested.
    ChatBefore);
view!(/// `model.chat.after`: a chat completion finished.
    ChatAfter);
view!(/// `model.chat.chunk`: one streamed chunk of a chat completion.
    ChatChunk);
view!(/// `model.embedding.before`: texts are about to be embedded.
    EmbeddingBefore);

impl<'a> ToolBefore<'a> {
    pub fn tool_id(&self) -> &'a str { self.s("tool_id") }
    pub fn name(&self) -> &'a str { self.s("name") }
    pub fn arguments(&self) -> &'a Value { self.v("arguments") }
    pub fn call_id(&self) -> &'a str { self.s("call_id") }
}

impl<'a> ToolAfter<'a> {
    pub fn tool_id(&self) -> &'a str { self.s("tool_id") }
    pub fn name(&self) -> &'a str { self.s("name") }
    pub fn arguments(&self) -> &'a Value { self.v("arguments") }
    pub fn call_id(&self) -> &'a str { self.s("call_id") }
    /// "succeeded" or "failed".
    pub fn status(&self) -> &'a str { self.s("status") }
    /// The real result (read-only).
    pub fn result(&self) -> &'a Value { self.v("result") }
    /// What the model will see of the result: the only patchable and redactable field.
    pub fn view(&self) -> &'a Value { self.v("view") }
    pub fn duration_ms(&self) -> f64 { self.payload.get("duration_ms").as_float_or(-1.0) }
    /// When status is "failed": `{code, message}` (read-only); Nil otherwise.
    pub fn error(&self) -> &'a Value { self.v("error") }
    /// What the tool reported it did, read-only; Nil when nothing.
    pub fn artifacts(&self) -> &'a Value { self.v("artifacts") }
}

impl<'a> ChatBefore<'a> {
    pub fn model(&self) -> &'a str { self.s("model") }
    pub fn messages(&self) -> &'a Value { self.v("messages") }
    pub fn params(&self) -> &'a Value { self.v("params") }
    pub fn message_count(&self) -> usize { self.messages().len() }
    /// Message `i`'s text: its content string, or its text parts joined with "\n".
    pub fn message_text(&self, i: usize) -> String { text_of(self.messages().at(i).get("content")) }
    /// Message `i`'s reasoning text (assistant turns); "" when none.
    pub fn message_reasoning(&self, i: usize) -> &'a str { self.messages().at(i).get("reasoning_content").as_str_or("") }
}

impl<'a> ChatAfter<'a> {
    pub fn model(&self) -> &'a str { self.s("model") }
    /// The answer text: content as a string, or its text parts joined with "\n".
    pub fn content(&self) -> String { text_of(self.v("content")) }
    /// The content as it is: a string, Nil, or a list of parts.
    pub fn content_value(&self) -> &'a Value { self.v("content") }
    pub fn refusal(&self) -> &'a str { self.s("refusal") }
    pub fn reasoning_content(&self) -> &'a str { self.s("reasoning_content") }
    pub fn tool_calls(&self) -> &'a Value { self.v("tool_calls") }
    pub fn finish_reason(&self) -> &'a str { self.s("finish_reason") }
    pub fn usage(&self) -> &'a Value { self.v("usage") }
}

impl<'a> ChatChunk<'a> {
    pub fn model(&self) -> &'a str { self.s("model") }
    /// The chunk's text: the suffix held back from the previous chunk, then the new text.
    pub fn delta(&self) -> &'a str { self.s("delta") }
    pub fn chunk_index(&self) -> i64 { self.payload.get("chunk_index").as_int_or(-1) }
    pub fn is_last(&self) -> bool { self.payload.get("is_last").as_bool_or(false) }
    /// "content" (the answer), "reasoning" or "refusal".
    pub fn channel(&self) -> &'a str { self.payload.get("channel").as_str_or("content") }
    pub fn request_id(&self) -> &'a str { self.s("request_id") }
}

impl<'a> EmbeddingBefore<'a> {
    pub fn model(&self) -> &'a str { self.s("model") }
    pub fn texts(&self) -> &'a Value { self.v("texts") }
    pub fn count(&self) -> usize { self.texts().len() }
    pub fn text_at(&self, i: usize) -> &'a str { self.texts().at(i).as_str_or("") }
}

/// Content as text: a string as it is, a list of parts as its text parts joined with "\n".
pub fn text_of(content: &Value) -> String {
    if let Value::Array(parts) = content {
        let mut out = String::new();
        let mut first = true;
        for part in parts {
            if part.get("type").as_str_or("") != "text" { continue; }
            if !first { out.push('\n'); }
            out.push_str(part.get("text").as_str_or(""));
            first = false;
        }
        return out;
    }
    String::from(content.as_str_or(""))
}
