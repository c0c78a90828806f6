// Config validation of SPEC §3 against contract/schema with ajv (JSON Schema 2020-12): the
// schema rejects a bad config and fills in the defaults; the few rules a JSON Schema cannot
// state are checked here. Any problem is a ConfigError naming the key, raised before anything
// connects.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020Module from "ajv/dist/2020.js";
import { ConfigError } from "./protocol.js";

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;

// The repository layout (adapters/node-opcua beside contract/schema), which the container
// image keeps too.
export const SCHEMA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "contract", "schema");
const SCHEMAS = ["common", "server", "client", "publisher", "subscriber", "result", "event", "capabilities"];

function compile({ useDefaults }) {
  // verbose: a `pattern` error carries its schema, whose description says what was expected.
  const ajv = new Ajv2020({ allErrors: true, useDefaults, verbose: true, strict: false });
  for (const name of SCHEMAS) ajv.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, `${name}.json`), "utf8")));
  return (name) => ajv.getSchema(`urn:uabench:contract:${name}`);
}
// One instance fills in defaults (it changes the object it validates), one only checks.
const filling = compile({ useDefaults: true });
export const schemaValidator = compile({ useDefaults: false });

/** "/security/endpoints/0/policy" -> "security.endpoints[0].policy" */
function keyOf(pointer) {
  return pointer.split("/").slice(1).map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce((key, part) => (/^\d+$/.test(part) ? `${key}[${part}]` : key ? `${key}.${part}` : part), "");
}

const UNKNOWN = { additionalProperties: "additionalProperty", unevaluatedProperties: "unevaluatedProperty" };

/** One problem in SPEC's words, naming the key. */
export function describe(error) {
  const key = keyOf(error.instancePath);
  const prefix = key ? `${key}.` : "";
  if (UNKNOWN[error.keyword]) return `config: unknown key '${prefix}${error.params[UNKNOWN[error.keyword]]}'`;
  if (error.keyword === "required") return `config: missing required key '${prefix}${error.params.missingProperty}'`;
  if (error.keyword === "pattern" && error.parentSchema?.description) {
    return `config: key '${key}' must be ${error.parentSchema.description}, got ${JSON.stringify(error.data)}`;
  }
  return `config: key '${key}' ${error.message}, got ${JSON.stringify(error.data)}`;
}

// A failed `then` is reported as an `if` error too, and a key whose value failed may also be
// reported as unevaluated: both are consequences, so a value error of the deepest key wins.
function firstProblem(errors) {
  const ranked = errors.filter((e) => e.keyword !== "if")
    .map((e) => [UNKNOWN[e.keyword] ? 1 : 0, -e.instancePath.split("/").length, e])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return ranked.length ? describe(ranked[0][2]) : "config: rejected by the schema";
}

/** Every problem of `instance` against schema `name` (an empty list if none), as SPEC messages. */
export function problems(name, instance) {
  const validate = schemaValidator(name);
  return validate(instance) ? [] : validate.errors.filter((e) => e.keyword !== "if").map(describe);
}

/** The config of `role` with its defaults filled in, or a ConfigError naming the key. */
export function checkConfig(role, raw) {
  const config = structuredClone(raw);
  const validate = filling(role);
  if (!validate(config)) throw new ConfigError(firstProblem(validate.errors));
  rejectFractionalIntegers(role, raw);
  return config;
}

// To JSON Schema 5.0 is an integer; to SPEC an integer key written as "5.0" or "1e3" is a
// bad config, as in the reference. loadConfig marks such numbers; a marked key is refused
// when the schema turns out to want an integer there (it rejects the value plus one half).
const WRITTEN = Symbol("numbers written with a fraction or exponent");

function rejectFractionalIntegers(role, raw) {
  for (const [pointer, source] of fractionalNumbers(raw)) {
    const probe = structuredClone(raw);
    const parts = pointer.split("/").slice(1);
    const holder = parts.slice(0, -1).reduce((node, part) => node[part], probe);
    holder[parts.at(-1)] += 0.5;
    const validate = schemaValidator(role);
    if (!validate(probe) && validate.errors.some((e) => e.instancePath === pointer && e.keyword === "type")) {
      throw new ConfigError(`config: key '${keyOf(pointer)}' must be an integer, got ${source}`);
    }
  }
}

function* fractionalNumbers(node, pointer = "") {
  if (node === null || typeof node !== "object") return;
  for (const [key, source] of Object.entries(node[WRITTEN] ?? {})) yield [`${pointer}/${key}`, source];
  for (const [key, child] of Object.entries(node)) yield* fractionalNumbers(child, `${pointer}/${key}`);
}

/** Parses config text; integral numbers written with a fraction or exponent are remembered. */
export function parseConfig(text) {
  return JSON.parse(text, function revive(key, value, context) {
    if (typeof value === "number" && Number.isInteger(value) && /[.eE]/.test(context?.source ?? "")) {
      if (!Object.hasOwn(this, WRITTEN)) Object.defineProperty(this, WRITTEN, { value: {}, enumerable: false });
      this[WRITTEN][key] = context.source;
    }
    return value;
  });
}

function requireReadable(name, file) {
  try {
    fs.accessSync(file, fs.constants.R_OK);
  } catch (error) {
    throw new ConfigError(`config: key '${name}': cannot read ${file}: ${error.code}`);
  }
}

/**
 * SPEC §4 "Imported information models": a `nodesets` path that is not a readable file is a
 * config error, so main.js checks it before the server is built; node-opcua's loader would
 * only report it as a failed initialize(), which is a runtime error. Not part of serverConfig:
 * the paths of the good config vectors name no files.
 */
export function requireNodesetFiles({ nodesets }) {
  nodesets.forEach((file, i) => {
    const name = `nodesets[${i}]`;
    requireReadable(name, file);
    // R_OK holds for a directory too.
    if (!fs.statSync(file).isFile()) throw new ConfigError(`config: key '${name}': cannot read ${file}: not a file`);
  });
}

// SPEC §2 "unreadable config": the limits every adapter applies before it looks at a key.
export const CONFIG_MAX_BYTES = 16 * 1024 * 1024;
export const CONFIG_MAX_DEPTH = 64;

// At most CONFIG_MAX_BYTES + 1 bytes, so a huge file (or a device) is never read whole.
function readLimited(file) {
  const fd = fs.openSync(file, "r");
  try {
    const buffer = Buffer.alloc(CONFIG_MAX_BYTES + 1);
    let length = 0;
    for (let n; length < buffer.length && (n = fs.readSync(fd, buffer, length, buffer.length - length, null)) > 0; ) length += n;
    return buffer.subarray(0, length);
  } finally {
    fs.closeSync(fd);
  }
}

// The nesting depth of JSON text, counted before parsing because the reviver of parseConfig
// recurses and a 100 000-deep array would exhaust the stack. Hand-written: ajv and JSON.parse
// have no depth limit; brackets inside strings do not count.
function deeperThanLimit(text) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > CONFIG_MAX_DEPTH) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

// A string that no UTF-8 text can hold (an escaped unpaired surrogate) or one holding U+0000.
function badString(node) {
  if (typeof node === "string") return !node.isWellFormed() ? "an unpaired surrogate" : node.includes("\0") ? "\\u0000" : null;
  if (node === null || typeof node !== "object") return null;
  for (const [key, value] of Object.entries(node)) {
    const problem = badString(key) ?? badString(value);
    if (problem) return problem;
  }
  return null;
}

export function loadConfig(file) {
  let bytes;
  try {
    bytes = readLimited(file);
  } catch (error) {
    throw new ConfigError(`config: cannot read ${file}: ${error.code}`);
  }
  if (bytes.length > CONFIG_MAX_BYTES) throw new ConfigError(`config: ${file} is larger than ${CONFIG_MAX_BYTES} bytes`);
  let text;
  try {
    // fatal: refuse what is not UTF-8 (not U+FFFD); ignoreBOM keeps a BOM, which JSON refuses.
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ConfigError(`config: ${file} is not UTF-8`);
  }
  if (deeperThanLimit(text)) throw new ConfigError(`config: ${file} is nested deeper than ${CONFIG_MAX_DEPTH} levels`);
  let raw;
  try {
    raw = parseConfig(text);
  } catch (error) {
    throw new ConfigError(`config: ${file} is not valid JSON: ${error.message}`);
  }
  const problem = badString(raw);
  if (problem) throw new ConfigError(`config: ${file} is not valid JSON: a string holds ${problem}`);
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new ConfigError(`config: ${file} must hold a JSON object`);
  return raw;
}

export function serverConfig(raw) {
  const config = checkConfig("server", raw);
  const { security } = config;
  for (const name of ["certificate", "private_key"]) {
    if (security[name]) requireReadable(`security.${name}`, security[name]);
  }
  security.trusted_certificates.forEach((file, i) => requireReadable(`security.trusted_certificates[${i}]`, file));
  return config;
}

export function clientConfig(raw) {
  const config = checkConfig("client", raw);
  if (config.security.policy !== "None") {
    requireReadable("security.certificate", config.security.certificate);
    requireReadable("security.private_key", config.security.private_key);
  }
  // SPEC §3: the think time belongs to the closed loop; an open loop sends at fixed times.
  if (config.think_ms > 0 && config.rate !== null && config.rate !== undefined) {
    throw new ConfigError("config: key 'think_ms' is the closed loop's wait between a response and the next "
      + `request; it cannot be ${config.think_ms} with a rate (open loop)`);
  }
  return config;
}
