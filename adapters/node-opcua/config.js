// Config validation of SPEC §3, mirroring harness/uabench/contract.py key by key.
// Any problem is a ConfigError naming the key, raised before anything connects.
import fs from "node:fs";
import { ConfigError } from "./protocol.js";

export const POLICIES = ["None", "Basic256Sha256", "Aes128_Sha256_RsaOaep", "Aes256_Sha256_RsaPss"];
export const MODES = ["None", "Sign", "SignAndEncrypt"];
export const WORKLOADS = ["read", "write", "subscribe"];

const key = (kind, options = {}) => ({ kind, default: null, nullable: false, required: false, ...options });

const SERVER_KEYS = {
  host: key("string", { default: "127.0.0.1" }),
  port: key("int", { low: 1, high: 65535, required: true }),
  signals: key("int", { default: 1000, low: 0, high: 100000 }),
  update_interval_ms: key("int", { default: 100, low: 0, high: 60000 }),
  writes: key("int", { default: 100, low: 0, high: 100000 }),
  security: key("object"),
};
const SERVER_SECURITY_KEYS = {
  endpoints: key("endpoints"),
  certificate: key("string", { nullable: true }),
  private_key: key("string", { nullable: true }),
  application_uri: key("string", { default: "urn:uabench:server" }),
  trusted_certificates: key("strings"),
};
const CLIENT_KEYS = {
  endpoint: key("string", { required: true }),
  workload: key("choice", { required: true, choices: WORKLOADS }),
  security: key("object"),
  sessions: key("int", { default: 1, low: 1, high: 1000 }),
  warmup_s: key("number", { default: 1, low: 0, high: 3600 }),
  duration_s: key("number", { default: 5, low: 0.1, high: 86400 }),
  verify: key("bool", { default: true }),
  nodes: key("strings", { required: true }),
};
const CLIENT_SECURITY_KEYS = {
  policy: key("choice", { default: "None", choices: POLICIES }),
  mode: key("choice", { default: "None", choices: MODES }),
  certificate: key("string", { nullable: true }),
  private_key: key("string", { nullable: true }),
  application_uri: key("string", { default: "urn:uabench:client" }),
};
const REQUEST_KEYS = {
  nodes_per_request: key("int", { default: 1, low: 1, high: 10000 }),
  in_flight: key("int", { default: 1, low: 1, high: 10000 }),
  rate: key("number", { low: 1e-9, high: 1e9, nullable: true }),
};
const WORKLOAD_KEYS = {
  read: REQUEST_KEYS,
  write: REQUEST_KEYS,
  subscribe: {
    subscriptions: key("int", { default: 1, low: 1, high: 1000 }),
    publishing_interval_ms: key("number", { default: 100, low: 1, high: 60000 }),
    sampling_interval_ms: key("number", { default: 100, low: 0, high: 60000 }),
    queue_size: key("int", { default: 1, low: 1, high: 10000 }),
  },
};

// A number written with a fraction or exponent ("5.0", "1e3") parses boxed, so that an
// int key can reject it as the reference implementation does.
const isBoxedNumber = (value) => value instanceof Number;
const show = (value) => (isBoxedNumber(value) ? value.source : JSON.stringify(value) ?? String(value));
const isPlainObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value) && !isBoxedNumber(value);

function check(name, spec, value) {
  if (value === null) {
    if (spec.nullable) return null;
    throw new ConfigError(`config: key '${name}' must not be null`);
  }
  switch (spec.kind) {
    case "int":
      if (typeof value !== "number" || !Number.isInteger(value)) {
        throw new ConfigError(`config: key '${name}' must be an integer, got ${show(value)}`);
      }
      break;
    case "number":
      if (isBoxedNumber(value)) value = value.valueOf();
      if (typeof value !== "number" || !Number.isFinite(value)) {
        throw new ConfigError(`config: key '${name}' must be a number, got ${show(value)}`);
      }
      break;
    case "bool":
      if (typeof value !== "boolean") throw new ConfigError(`config: key '${name}' must be true or false, got ${show(value)}`);
      break;
    case "string":
      if (typeof value !== "string" || !value) {
        throw new ConfigError(`config: key '${name}' must be a non-empty string, got ${show(value)}`);
      }
      break;
    case "choice":
      if (!spec.choices.includes(value)) {
        throw new ConfigError(`config: key '${name}' must be one of ${spec.choices.join(", ")}, got ${show(value)}`);
      }
      break;
    case "strings":
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && v)) {
        throw new ConfigError(`config: key '${name}' must be a list of strings`);
      }
      if (name === "nodes" && value.length === 0) throw new ConfigError("config: key 'nodes' must not be empty");
      break;
    case "object":
      if (!isPlainObject(value)) throw new ConfigError(`config: key '${name}' must be an object`);
      break;
    case "endpoints":
      if (!Array.isArray(value) || value.length === 0) {
        throw new ConfigError(`config: key '${name}' must be a non-empty list of {policy, mode}`);
      }
      return value.map((entry, i) => securityPair(`${name}[${i}]`, entry));
    default:
      throw new Error(`unknown key kind ${spec.kind}`);
  }
  if (spec.low !== undefined && !(value >= spec.low && value <= spec.high)) {
    throw new ConfigError(`config: key '${name}' = ${show(value)} is out of range [${spec.low}, ${spec.high}]`);
  }
  return value;
}

function securityPair(name, entry) {
  if (!isPlainObject(entry)) throw new ConfigError(`config: key '${name}' must be an object with policy and mode`);
  const pair = fill(entry, { policy: CLIENT_SECURITY_KEYS.policy, mode: CLIENT_SECURITY_KEYS.mode }, `${name}.`);
  checkPolicyMode(pair.policy, pair.mode, name);
  return pair;
}

function checkPolicyMode(policy, mode, where) {
  if ((policy === "None") !== (mode === "None")) {
    throw new ConfigError(`config: key '${where}' pairs policy ${policy} with mode ${mode}`);
  }
}

function fill(raw, keys, prefix = "") {
  for (const name of Object.keys(raw)) {
    if (!Object.hasOwn(keys, name)) throw new ConfigError(`config: unknown key '${prefix}${name}'`);
  }
  const out = {};
  for (const [name, spec] of Object.entries(keys)) {
    if (Object.hasOwn(raw, name)) out[name] = check(prefix + name, spec, raw[name]);
    else if (spec.required) throw new ConfigError(`config: missing required key '${prefix}${name}'`);
    else out[name] = spec.default;
  }
  return out;
}

function requireReadable(name, path) {
  try {
    fs.accessSync(path, fs.constants.R_OK);
  } catch (error) {
    throw new ConfigError(`config: key '${name}': cannot read ${path}: ${error.code}`);
  }
}

export function loadConfig(path) {
  let text;
  try {
    text = fs.readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`config: cannot read ${path}: ${error.code}`);
  }
  let raw;
  try {
    raw = JSON.parse(text, (_key, value, context) =>
      typeof value === "number" && /[.eE]/.test(context?.source ?? "")
        ? Object.assign(new Number(value), { source: context.source }) : value);
  } catch (error) {
    throw new ConfigError(`config: ${path} is not valid JSON: ${error.message}`);
  }
  if (!isPlainObject(raw)) throw new ConfigError(`config: ${path} must hold a JSON object`);
  return raw;
}

export function serverConfig(raw) {
  const config = fill(raw, SERVER_KEYS);
  const security = fill(config.security ?? {}, SERVER_SECURITY_KEYS, "security.");
  security.endpoints ??= [{ policy: "None", mode: "None" }];
  security.trusted_certificates ??= [];
  const secure = security.endpoints.some((e) => e.policy !== "None");
  if (secure && !(security.certificate && security.private_key)) {
    throw new ConfigError("config: key 'security.certificate' and 'security.private_key' are required for a secure endpoint");
  }
  for (const name of ["certificate", "private_key"]) {
    if (security[name]) requireReadable(`security.${name}`, security[name]);
  }
  security.trusted_certificates.forEach((path, i) => requireReadable(`security.trusted_certificates[${i}]`, path));
  config.security = security;
  return config;
}

export function clientConfig(raw) {
  const keys = { ...CLIENT_KEYS, ...(Object.hasOwn(WORKLOAD_KEYS, raw.workload) ? WORKLOAD_KEYS[raw.workload] : {}) };
  const config = fill(raw, keys);
  if (!config.endpoint.startsWith("opc.tcp://")) {
    throw new ConfigError(`config: key 'endpoint' must start with opc.tcp://, got ${show(config.endpoint)}`);
  }
  const security = fill(config.security ?? {}, CLIENT_SECURITY_KEYS, "security.");
  checkPolicyMode(security.policy, security.mode, "security");
  if (security.policy !== "None") {
    if (!(security.certificate && security.private_key)) {
      throw new ConfigError("config: key 'security.certificate' and 'security.private_key' are required "
        + `for policy ${security.policy}`);
    }
    requireReadable("security.certificate", security.certificate);
    requireReadable("security.private_key", security.private_key);
  }
  config.security = security;
  return config;
}
