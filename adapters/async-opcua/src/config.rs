//! Config loading and validation (SPEC §2 "Unreadable config", §3): the file is read with the
//! limits of SPEC §2 and parsed by a strict RFC 8259 parser here (serde_json would quietly accept
//! an escaped unpaired surrogate or `\u0000`), then validated against contract/schema with the
//! `jsonschema` crate (draft 2020-12); the schema's defaults are filled in by walking the same
//! schema. The few rules a JSON Schema cannot state (an integer written with a fraction, think_ms
//! with a rate) are checked here. Every problem is a `Failure::Config` naming the key.

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Registry, Resource, Validator};
use serde_json::{Map, Number, Value};

use crate::json_out::Failure;

pub const CONFIG_MAX_BYTES: usize = 16 * 1024 * 1024;
pub const CONFIG_MAX_DEPTH: usize = 64;
const SCHEMAS: [&str; 8] = [
    "common",
    "server",
    "client",
    "publisher",
    "subscriber",
    "result",
    "event",
    "capabilities",
];

fn config_error(message: impl Into<String>) -> Failure {
    Failure::Config(message.into())
}

// ---------------------------------------------------------------------------------------------
// Reading and parsing

/// The raw config: the parsed object and the JSON pointers of numbers written with a fraction or
/// an exponent (`2.0`, `1e3`), which SPEC refuses where an integer is wanted.
pub struct RawConfig {
    pub value: Value,
    pub written_with_fraction: Vec<String>,
}

/// SPEC §2: reads at most 16 MiB + 1 bytes, refuses what is not UTF-8, too deep, not JSON or not
/// an object, each with the message the vectors expect.
pub fn load_config(path: &Path) -> Result<RawConfig, Failure> {
    let shown = path.display();
    let mut file = File::open(path).map_err(|e| config_error(format!("config: cannot read {shown}: {e}")))?;
    let mut bytes = Vec::new();
    (&mut file)
        .take(CONFIG_MAX_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| config_error(format!("config: cannot read {shown}: {e}")))?;
    parse_config_bytes(&bytes, &shown.to_string())
}

pub fn parse_config_bytes(bytes: &[u8], shown: &str) -> Result<RawConfig, Failure> {
    if bytes.len() > CONFIG_MAX_BYTES {
        return Err(config_error(format!(
            "config: {shown} is larger than {CONFIG_MAX_BYTES} bytes"
        )));
    }
    // std's UTF-8 check is strict: no overlong forms, surrogates, code points past U+10FFFF or
    // cut sequences.
    let text = std::str::from_utf8(bytes).map_err(|_| config_error(format!("config: {shown} is not UTF-8")))?;
    if deeper_than_limit(text.as_bytes()) {
        return Err(config_error(format!(
            "config: {shown} is nested deeper than {CONFIG_MAX_DEPTH} levels"
        )));
    }
    let mut parser = Parser {
        text: text.as_bytes(),
        at: 0,
        fractions: Vec::new(),
    };
    let value = parser
        .document()
        .map_err(|why| config_error(format!("config: {shown} is not valid JSON: {why}")))?;
    if !value.is_object() {
        return Err(config_error(format!("config: {shown} must hold a JSON object")));
    }
    Ok(RawConfig {
        value,
        written_with_fraction: parser.fractions,
    })
}

/// Container depth counted before parsing (brackets inside strings do not count), so a 100 000
/// deep file is refused without recursing.
fn deeper_than_limit(text: &[u8]) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        if in_string {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_string = false;
            }
        } else if c == b'"' {
            in_string = true;
        } else if c == b'[' || c == b'{' {
            depth += 1;
            if depth > CONFIG_MAX_DEPTH {
                return true;
            }
        } else if c == b']' || c == b'}' {
            depth = depth.saturating_sub(1);
        }
        i += 1;
    }
    false
}

/// A strict RFC 8259 parser (depth already bounded by `deeper_than_limit`).
struct Parser<'a> {
    text: &'a [u8],
    at: usize,
    fractions: Vec<String>,
}

impl Parser<'_> {
    fn document(&mut self) -> Result<Value, String> {
        self.skip_ws();
        if self.at >= self.text.len() {
            return Err("empty".into());
        }
        let value = self.value("")?;
        self.skip_ws();
        if self.at != self.text.len() {
            return Err(format!("text after the value at byte {}", self.at));
        }
        Ok(value)
    }

    fn skip_ws(&mut self) {
        while self.at < self.text.len() && matches!(self.text[self.at], b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected '{}' at byte {}", c as char, self.at))
        }
    }

    fn value(&mut self, pointer: &str) -> Result<Value, String> {
        match self.peek() {
            Some(b'{') => self.object(pointer),
            Some(b'[') => self.array(pointer),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(pointer),
            _ => Err(format!("unexpected character at byte {}", self.at)),
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, String> {
        if self.text[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(format!("unexpected character at byte {}", self.at))
        }
    }

    fn object(&mut self, pointer: &str) -> Result<Value, String> {
        self.expect(b'{')?;
        let mut map = Map::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Value::Object(map));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(format!("expected a string key at byte {}", self.at));
            }
            let key = self.string()?;
            self.skip_ws();
            self.expect(b':')?;
            self.skip_ws();
            let child = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
            let value = self.value(&child)?;
            map.insert(key, value);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Value::Object(map));
                }
                _ => return Err(format!("expected ',' or '}}' at byte {}", self.at)),
            }
        }
    }

    fn array(&mut self, pointer: &str) -> Result<Value, String> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_ws();
            let child = format!("{pointer}/{}", items.len());
            items.push(self.value(&child)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(format!("expected ',' or ']' at byte {}", self.at)),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self.text.get(self.at..self.at + 4).ok_or("cut \\u escape")?;
        let text = std::str::from_utf8(digits).map_err(|_| "bad \\u escape")?;
        if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("bad \\u escape at byte {}", self.at));
        }
        self.at += 4;
        Ok(u32::from_str_radix(text, 16).unwrap_or(0))
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out = String::new();
        loop {
            let start = self.at;
            while self.at < self.text.len() && !matches!(self.text[self.at], b'"' | b'\\' | 0..=0x1f) {
                self.at += 1;
            }
            // The input is valid UTF-8 and the run stops at ASCII bytes only.
            out.push_str(std::str::from_utf8(&self.text[start..self.at]).unwrap_or(""));
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let escape = self.peek().ok_or("cut escape")?;
                    self.at += 1;
                    match escape {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let unit = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&unit) {
                                // A high surrogate must be followed by an escaped low one.
                                if !self.text[self.at..].starts_with(b"\\u") {
                                    return Err("a string holds an unpaired surrogate".into());
                                }
                                self.at += 2;
                                let low = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&low) {
                                    return Err("a string holds an unpaired surrogate".into());
                                }
                                0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                            } else if (0xDC00..0xE000).contains(&unit) {
                                return Err("a string holds an unpaired surrogate".into());
                            } else {
                                unit
                            };
                            if code == 0 {
                                return Err("a string holds \\u0000".into());
                            }
                            out.push(char::from_u32(code).ok_or("bad \\u escape")?);
                        }
                        _ => return Err(format!("bad escape at byte {}", self.at - 1)),
                    }
                }
                Some(_) => return Err(format!("control character in a string at byte {}", self.at)),
                None => return Err("unterminated string".into()),
            }
        }
    }

    fn number(&mut self, pointer: &str) -> Result<Value, String> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                while matches!(self.peek(), Some(b'0'..=b'9')) {
                    self.at += 1;
                }
            }
            _ => return Err(format!("bad number at byte {start}")),
        }
        let mut integral = true;
        if self.peek() == Some(b'.') {
            integral = false;
            self.at += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(format!("bad number at byte {start}"));
            }
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.at += 1;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integral = false;
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(format!("bad number at byte {start}"));
            }
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.at += 1;
            }
        }
        let lexeme = std::str::from_utf8(&self.text[start..self.at]).unwrap_or("0");
        if integral {
            if let Ok(v) = lexeme.parse::<i64>() {
                return Ok(Value::Number(v.into()));
            }
            if let Ok(v) = lexeme.parse::<u64>() {
                return Ok(Value::Number(v.into()));
            }
        } else {
            self.fractions.push(pointer.to_string());
        }
        let v: f64 = lexeme.parse().map_err(|_| format!("bad number at byte {start}"))?;
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| format!("number out of range at byte {start}"))
    }
}

// ---------------------------------------------------------------------------------------------
// Schema validation

/// contract/schema: the run script passes UABENCH_SCHEMA_DIR; else the repository layout
/// (adapters/async-opcua/target/release/<binary> beside contract/schema), else the layout of
/// the container image (<dir of binary>/contract/schema).
pub fn schema_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("UABENCH_SCHEMA_DIR") {
        return PathBuf::from(dir);
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contract/schema");
    if manifest.is_dir() {
        return manifest;
    }
    if let Ok(exe) = std::env::current_exe() {
        for ancestor in exe.ancestors().skip(1) {
            let candidate = ancestor.join("contract/schema");
            if candidate.is_dir() {
                return candidate;
            }
        }
    }
    manifest
}

pub struct Schemas {
    documents: HashMap<String, Value>,
    registry: &'static Registry<'static>,
    validators: HashMap<String, Validator>,
}

static SCHEMAS_CELL: OnceLock<Result<Schemas, String>> = OnceLock::new();

fn urn(name: &str) -> String {
    format!("urn:uabench:contract:{name}")
}

pub fn schemas() -> Result<&'static Schemas, Failure> {
    SCHEMAS_CELL
        .get_or_init(load_schemas)
        .as_ref()
        .map_err(|e| Failure::Runtime(e.clone()))
}

fn load_schemas() -> Result<Schemas, String> {
    let dir = schema_dir();
    let mut documents = HashMap::new();
    for name in SCHEMAS {
        let path = dir.join(format!("{name}.json"));
        let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read schema {}: {e}", path.display()))?;
        let value: Value = serde_json::from_str(&text).map_err(|e| format!("bad schema {}: {e}", path.display()))?;
        documents.insert(name.to_string(), value);
    }
    let mut builder = Registry::new();
    for name in SCHEMAS {
        builder = builder
            .add(urn(name), Resource::from_contents(documents[name].clone()))
            .map_err(|e| format!("schema {name}: {e}"))?;
    }
    // The registry lives as long as the process: validators borrow it.
    let registry: &'static Registry<'static> = Box::leak(Box::new(
        builder.prepare().map_err(|e| format!("schema registry: {e}"))?,
    ));
    let mut validators = HashMap::new();
    for name in SCHEMAS {
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .with_registry(registry)
            .build(&documents[name])
            .map_err(|e| format!("schema {name}: {e}"))?;
        validators.insert(name.to_string(), validator);
    }
    Ok(Schemas {
        documents,
        registry,
        validators,
    })
}

/// "/security/endpoints/0/policy" -> "security.endpoints[0].policy"
fn key_of(pointer: &str) -> String {
    let mut key = String::new();
    for part in pointer.split('/').skip(1) {
        let part = part.replace("~1", "/").replace("~0", "~");
        if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
            key.push_str(&format!("[{part}]"));
        } else if key.is_empty() {
            key = part;
        } else {
            key.push('.');
            key.push_str(&part);
        }
    }
    key
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 60 {
        text
    } else {
        text.chars().take(57).collect::<String>() + "..."
    }
}

impl Schemas {
    pub fn validator(&self, name: &str) -> &Validator {
        &self.validators[name]
    }

    /// Every problem of `instance` against schema `name`, as SPEC messages, the most telling
    /// first: a value error before an unknown key (a key whose value failed may also be reported
    /// as unevaluated), the deepest key first.
    pub fn problems(&self, name: &str, instance: &Value) -> Vec<String> {
        let mut ranked: Vec<(u8, isize, String)> = self
            .validator(name)
            .iter_errors(instance)
            .map(|error| {
                let pointer = error.instance_path().to_string();
                let key = key_of(&pointer);
                let prefix = if key.is_empty() {
                    String::new()
                } else {
                    format!("{key}.")
                };
                let depth = pointer.matches('/').count() as isize;
                match error.kind() {
                    ValidationErrorKind::AdditionalProperties { unexpected }
                    | ValidationErrorKind::UnevaluatedProperties { unexpected } => (
                        1,
                        -depth,
                        format!(
                            "config: unknown key '{prefix}{}'",
                            unexpected.first().map(String::as_str).unwrap_or("?")
                        ),
                    ),
                    ValidationErrorKind::Required { property } => (
                        0,
                        -depth - 1,
                        format!(
                            "config: missing required key '{prefix}{}'",
                            property.as_str().unwrap_or("?")
                        ),
                    ),
                    _ => (
                        0,
                        -depth,
                        format!("config: key '{key}' {error}, got {}", short(error.instance())),
                    ),
                }
            })
            .collect();
        ranked.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        ranked.into_iter().map(|(_, _, message)| message).collect()
    }

    /// The sub-schema `reference` points at, seen from document `document`.
    fn resolve<'s>(&'s self, document: &'s str, reference: &str) -> Option<(&'s str, &'s Value)> {
        let (doc, fragment) = match reference.split_once('#') {
            Some(("", fragment)) => (document, fragment),
            Some((uri, fragment)) => (uri.strip_prefix("urn:uabench:contract:")?, fragment),
            None => (reference.strip_prefix("urn:uabench:contract:")?, ""),
        };
        let (name, root) = self.documents.get_key_value(doc)?;
        Some((name.as_str(), root.pointer(fragment)?))
    }

    /// Whether `instance` satisfies the sub-schema `schema` (an `if`), seen from `document`.
    fn satisfies(&self, document: &str, schema: &Value, instance: &Value) -> bool {
        let mut wrapped = schema.clone();
        if let Value::Object(map) = &mut wrapped {
            map.insert("$id".into(), Value::String(format!("{}-if", urn(document))));
        }
        // A relative "#/$defs/..." inside an `if` would resolve against the wrapper; the
        // contract's `if`s hold none.
        match jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .with_registry(self.registry)
            .build(&wrapped)
        {
            Ok(validator) => validator.is_valid(instance),
            Err(_) => false,
        }
    }

    /// Fills in the `default` of every property the instance lacks, through $ref, allOf,
    /// if/then/else and array items, as a validator with defaults would.
    pub fn fill_defaults(&self, document: &str, schema: &Value, instance: &mut Value) {
        let Value::Object(rules) = schema else { return };
        if let Some(Value::String(reference)) = rules.get("$ref") {
            if let Some((doc, target)) = self.resolve(document, reference) {
                self.fill_defaults(doc, target, instance);
            }
        }
        if let Some(Value::Array(all)) = rules.get("allOf") {
            for sub in all {
                self.fill_defaults(document, sub, instance);
            }
        }
        if let Some(condition) = rules.get("if") {
            let branch = if self.satisfies(document, condition, instance) {
                "then"
            } else {
                "else"
            };
            if let Some(sub) = rules.get(branch) {
                self.fill_defaults(document, sub, instance);
            }
        }
        if let (Some(Value::Object(properties)), Value::Object(object)) = (rules.get("properties"), &mut *instance) {
            for (name, sub) in properties {
                if !object.contains_key(name) {
                    if let Some(default) = sub.get("default") {
                        object.insert(name.clone(), default.clone());
                    }
                }
                if let Some(child) = object.get_mut(name) {
                    self.fill_defaults(document, sub, child);
                }
            }
        }
        if let (Some(items), Value::Array(array)) = (rules.get("items"), &mut *instance) {
            for item in array {
                self.fill_defaults(document, items, item);
            }
        }
    }

    /// The config of `role` checked against its schema, with its defaults filled in.
    pub fn check(&self, role: &str, raw: &RawConfig) -> Result<Value, Failure> {
        if let Some(first) = self.problems(role, &raw.value).into_iter().next() {
            return Err(config_error(first));
        }
        self.reject_fractional_integers(role, raw)?;
        let mut filled = raw.value.clone();
        let schema = &self.documents[role];
        self.fill_defaults(role, schema, &mut filled);
        Ok(filled)
    }

    /// To JSON Schema 2.0 is an integer; to SPEC an integer key written "2.0" or "1e3" is a bad
    /// config. Such a number is refused where the schema wants an integer, which shows by the
    /// schema refusing the value plus one half with a type error at that key.
    fn reject_fractional_integers(&self, role: &str, raw: &RawConfig) -> Result<(), Failure> {
        for pointer in &raw.written_with_fraction {
            let mut probe = raw.value.clone();
            let Some(Value::Number(n)) = probe.pointer_mut(pointer) else {
                continue;
            };
            let Some(v) = n.as_f64() else { continue };
            if v.fract() != 0.0 {
                continue;
            }
            let Some(shifted) = Number::from_f64(v + 0.5) else {
                continue;
            };
            let written = raw.value.pointer(pointer).cloned().unwrap_or(Value::Null);
            *probe.pointer_mut(pointer).expect("probed above") = Value::Number(shifted);
            let integer_wanted = self.validator(role).iter_errors(&probe).any(|error| {
                error.instance_path().to_string() == *pointer
                    && matches!(error.kind(), ValidationErrorKind::Type { .. })
            });
            if integer_wanted {
                return Err(config_error(format!(
                    "config: key '{}' must be an integer, got {}",
                    key_of(pointer),
                    written
                )));
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Typed configs

#[derive(Clone, Debug)]
pub struct Endpoint {
    pub policy: String,
    pub mode: String,
}

#[derive(Clone, Debug)]
pub struct ServerSecurity {
    pub endpoints: Vec<Endpoint>,
    pub certificate: Option<PathBuf>,
    pub private_key: Option<PathBuf>,
    pub application_uri: String,
    pub trusted_certificates: Vec<PathBuf>,
}

#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub host: String,
    pub port: u16,
    pub signals: usize,
    pub update_interval_ms: u64,
    pub writes: usize,
    pub security: ServerSecurity,
    /// NodeSet2 files to import, in order (SPEC §4 "Imported information models"). Whether each
    /// is a readable file is checked when the server starts (server.rs), not here.
    pub nodesets: Vec<PathBuf>,
}

#[derive(Clone, Debug)]
pub struct ClientSecurity {
    pub policy: String,
    pub mode: String,
    pub certificate: Option<PathBuf>,
    pub private_key: Option<PathBuf>,
    pub application_uri: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    Read,
    Write,
    Subscribe,
}

#[derive(Clone, Debug)]
pub struct ClientConfig {
    pub endpoint: String,
    pub workload: Workload,
    pub security: ClientSecurity,
    pub sessions: usize,
    pub warmup_s: f64,
    pub duration_s: f64,
    pub verify: bool,
    pub timeline_ms: u64,
    pub reconnect: bool,
    /// SPEC §3 request_timeout_ms; None (null): the SDK's request timeout and the adapter's own
    /// set-up bound, as without the key.
    pub request_timeout_ms: Option<u64>,
    pub nodes: Vec<String>,
    // read and write
    pub nodes_per_request: usize,
    pub in_flight: usize,
    pub rate: Option<f64>,
    pub think_ms: f64,
    pub record_latencies: bool,
    // subscribe
    pub subscriptions: usize,
    pub publishing_interval_ms: f64,
    pub sampling_interval_ms: f64,
    pub queue_size: u32,
    /// The config as run, defaults filled in (the result record's `config`).
    pub filled: Value,
}

fn int(v: &Value, key: &str, default: u64) -> u64 {
    v.get(key).and_then(Value::as_f64).map(|f| f as u64).unwrap_or(default)
}

fn num(v: &Value, key: &str, default: f64) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or(default)
}

fn text(v: &Value, key: &str, default: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or(default).to_string()
}

fn path(v: &Value, key: &str) -> Option<PathBuf> {
    v.get(key).and_then(Value::as_str).map(PathBuf::from)
}

fn require_readable(key: &str, file: &Path) -> Result<(), Failure> {
    File::open(file)
        .map(|_| ())
        .map_err(|e| config_error(format!("config: key '{key}': cannot read {}: {e}", file.display())))
}

pub fn server_config(raw: &RawConfig) -> Result<ServerConfig, Failure> {
    let filled = schemas()?.check("server", raw)?;
    let security = &filled["security"];
    let endpoints = security["endpoints"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|e| Endpoint {
                    policy: text(e, "policy", "None"),
                    mode: text(e, "mode", "None"),
                })
                .collect()
        })
        .unwrap_or_default();
    let trusted: Vec<PathBuf> = security["trusted_certificates"]
        .as_array()
        .map(|list| list.iter().filter_map(Value::as_str).map(PathBuf::from).collect())
        .unwrap_or_default();
    let config = ServerConfig {
        host: text(&filled, "host", "127.0.0.1"),
        port: int(&filled, "port", 0) as u16,
        signals: int(&filled, "signals", 1000) as usize,
        update_interval_ms: int(&filled, "update_interval_ms", 100),
        writes: int(&filled, "writes", 100) as usize,
        security: ServerSecurity {
            endpoints,
            certificate: path(security, "certificate"),
            private_key: path(security, "private_key"),
            application_uri: text(security, "application_uri", "urn:uabench:server"),
            trusted_certificates: trusted,
        },
        nodesets: filled["nodesets"]
            .as_array()
            .map(|list| list.iter().filter_map(Value::as_str).map(PathBuf::from).collect())
            .unwrap_or_default(),
    };
    for (key, file) in [
        ("security.certificate", &config.security.certificate),
        ("security.private_key", &config.security.private_key),
    ] {
        if let Some(file) = file {
            require_readable(key, file)?;
        }
    }
    for (i, file) in config.security.trusted_certificates.iter().enumerate() {
        require_readable(&format!("security.trusted_certificates[{i}]"), file)?;
    }
    Ok(config)
}

pub fn client_config(raw: &RawConfig) -> Result<ClientConfig, Failure> {
    let filled = schemas()?.check("client", raw)?;
    let security = &filled["security"];
    let workload = match filled["workload"].as_str() {
        Some("write") => Workload::Write,
        Some("subscribe") => Workload::Subscribe,
        _ => Workload::Read,
    };
    let config = ClientConfig {
        endpoint: text(&filled, "endpoint", ""),
        workload,
        security: ClientSecurity {
            policy: text(security, "policy", "None"),
            mode: text(security, "mode", "None"),
            certificate: path(security, "certificate"),
            private_key: path(security, "private_key"),
            application_uri: text(security, "application_uri", "urn:uabench:client"),
        },
        sessions: int(&filled, "sessions", 1) as usize,
        warmup_s: num(&filled, "warmup_s", 1.0),
        duration_s: num(&filled, "duration_s", 5.0),
        verify: filled["verify"].as_bool().unwrap_or(true),
        timeline_ms: int(&filled, "timeline_ms", 100),
        reconnect: filled["reconnect"].as_bool().unwrap_or(false),
        request_timeout_ms: filled.get("request_timeout_ms").and_then(Value::as_u64),
        nodes: filled["nodes"]
            .as_array()
            .map(|list| list.iter().filter_map(Value::as_str).map(String::from).collect())
            .unwrap_or_default(),
        nodes_per_request: int(&filled, "nodes_per_request", 1) as usize,
        in_flight: int(&filled, "in_flight", 1) as usize,
        rate: filled.get("rate").and_then(Value::as_f64),
        think_ms: num(&filled, "think_ms", 0.0),
        record_latencies: filled["record_latencies"].as_bool().unwrap_or(false),
        subscriptions: int(&filled, "subscriptions", 1) as usize,
        publishing_interval_ms: num(&filled, "publishing_interval_ms", 100.0),
        sampling_interval_ms: num(&filled, "sampling_interval_ms", 100.0),
        queue_size: int(&filled, "queue_size", 1) as u32,
        filled: filled.clone(),
    };
    // SPEC §3: the think time belongs to the closed loop; an open loop sends at fixed times.
    if config.think_ms > 0.0 && config.rate.is_some() {
        return Err(config_error(format!(
            "config: key 'think_ms' is the closed loop's wait between a response and the next \
             request; it cannot be {} with a rate (open loop)",
            config.think_ms
        )));
    }
    if config.security.policy != "None" {
        for (key, file) in [
            ("security.certificate", &config.security.certificate),
            ("security.private_key", &config.security.private_key),
        ] {
            if let Some(file) = file {
                require_readable(key, file)?;
            }
        }
    }
    Ok(config)
}
