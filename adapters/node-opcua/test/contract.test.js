// The golden vectors of contract/vectors run through this adapter's own modules:
// `node --test` in adapters/node-opcua (ci/test runs it on the Node the adapter runs on).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { DataType, Variant, VariantArrayType } from "node-opcua";
import { SCHEMA_DIR, checkConfig, clientConfig, loadConfig, parseConfig, problems, requireNodesetFiles, serverConfig }
  from "../config.js";
import { Histogram, bucket } from "../histogram.js";
import { ARRAYS, REAL_VALUE, doubleArray, image, page, sdd, signal, writeValue, writeVerificationValue } from "../model.js";
import { ConfigError } from "../protocol.js";
import { verifyValue } from "../verify.js";
import { RequestNodes } from "../workloads.js";

const VECTORS = path.resolve(SCHEMA_DIR, "..", "vectors");
// Read with the adapter's own parser, so "sessions": 2.0 stays written with a fraction.
const vectors = (name) => parseConfig(fs.readFileSync(path.join(VECTORS, `${name}.json`), "utf8"));
const CONFIGS = vectors("configs");
const HISTOGRAM = vectors("histogram");
const VALUES = vectors("values");

// The roles this adapter has; its config functions also check that certificate files are readable.
const ROLE = { server: serverConfig, client: clientConfig };
const label = (v) => `${v.role} ${JSON.stringify(v.config)}`;

test("bad config vectors are refused naming the key", async (t) => {
  for (const vector of CONFIGS.bad.filter((v) => ROLE[v.role])) {
    await t.test(label(vector), () => {
      assert.deepEqual([vector.exit, vector.kind], [2, "config"]);
      assert.throws(() => ROLE[vector.role](vector.config), (error) => {
        assert.ok(error instanceof ConfigError, String(error));
        assert.ok(error.message.includes(vector.key), `${error.message} does not name '${vector.key}'`);
        return true;
      });
    });
  }
});

// The file of an unreadable vector: each [hex, times] part repeated, in order (latin1 maps
// bytes to characters one to one, so String.repeat can do the repeating).
const fileBytes = (parts) =>
  Buffer.from(parts.map(([hex, times]) => Buffer.from(hex, "hex").toString("latin1").repeat(times)).join(""), "latin1");

test("unreadable config files are refused saying why", async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "uabench-node-vectors-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const vector of CONFIGS.unreadable) {
    await t.test(vector.name, () => {
      const file = path.join(dir, "config.json");
      fs.writeFileSync(file, fileBytes(vector.parts));
      assert.deepEqual([vector.exit, vector.kind], [2, "config"]);
      assert.throws(() => ROLE[vector.role](loadConfig(file)), (error) => {
        assert.ok(error instanceof ConfigError, String(error));
        assert.ok(error.message.includes(vector.says), `${error.message} does not say '${vector.says}'`);
        return true;
      });
    });
  }
});

test("ajv agrees with the vectors on what the schema alone rejects", () => {
  for (const vector of CONFIGS.bad) {
    assert.equal(problems(vector.role, vector.config).length > 0, vector.schema, label(vector));
  }
});

test("good config vectors are accepted with their defaults filled in", async (t) => {
  for (const vector of CONFIGS.good) {
    await t.test(label(vector), () => {
      const fill = ROLE[vector.role] ?? ((raw) => checkConfig(vector.role, raw));
      assert.deepEqual(fill(vector.config), vector.filled);
      assert.deepEqual(problems(vector.role, vector.filled), []);
    });
  }
});

// SPEC §4 "Imported information models": checked by main.js after serverConfig, before the
// server is built (the good vectors' paths name no files, so serverConfig leaves them alone).
test("nodesets that are not readable files are refused naming the key and the path", (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "uabench-node-nodesets-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "Model.NodeSet2.xml");
  fs.writeFileSync(file, "<UANodeSet/>");
  const missing = path.join(dir, "missing.xml");
  const server = (nodesets) => serverConfig({ port: 4840, nodesets });
  requireNodesetFiles(server([file]));
  requireNodesetFiles(server([]));
  const refused = [[[file, missing], `nodesets[1]': cannot read ${missing}`], [[dir], `nodesets[0]': cannot read ${dir}`]];
  for (const [nodesets, named] of refused) {
    assert.throws(() => requireNodesetFiles(server(nodesets)), (error) => {
      assert.ok(error instanceof ConfigError, String(error));
      assert.ok(error.message.includes(named), error.message);
      return true;
    });
  }
});

test("histogram buckets", () => {
  for (const { value_ns: value, bucket: expected, low, high } of HISTOGRAM.buckets) {
    assert.equal(bucket(value), expected, `bucket(${value})`);
    assert.equal(bucket(low), expected);
    assert.equal(bucket(high), expected);
    assert.ok(bucket(high + 1) > expected, `bucket(${high + 1})`);
  }
});

test("sparse histograms", () => {
  for (const { values_ns: values, sparse } of HISTOGRAM.histograms) {
    const histogram = new Histogram();
    values.forEach((v) => histogram.record(v));
    assert.deepEqual(histogram.sparse(), sparse);
  }
});

function checkPattern(actual, vector, bytes) {
  assert.equal(actual.length, vector.length);
  assert.equal(Array.from(actual).reduce((a, b) => a + b, 0), vector.sum);
  for (const [k, value] of vector.samples) assert.equal(actual[k], value, `element ${k}`);
  assert.equal(createHash("sha256").update(bytes).digest("hex"), vector.sha256_le);
}

const littleEndian = (typed) => {
  // Buffer views the typed array's memory: little-endian on every platform Node runs here
  assert.equal(new Uint8Array(new Uint16Array([1]).buffer)[0], 1, "a little-endian host");
  return Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength);
};

test("Page, SDD, Image and the Double arrays", () => {
  checkPattern(page(), VALUES.page, littleEndian(page()));
  checkPattern(sdd(), VALUES.sdd, sdd());
  checkPattern(image(), VALUES.image, image());
  for (const [name, length] of Object.entries(ARRAYS)) {
    checkPattern(doubleArray(length), VALUES.arrays[name], littleEndian(doubleArray(length)));
  }
  assert.equal(REAL_VALUE, VALUES.real);
});

test("signal values and their verification", () => {
  for (const v of VALUES.signal) assert.equal(signal(v.index, v.tick), v.value, `signal(${v.index}, ${v.tick})`);
  const TYPES = { Tick: DataType.UInt32, Real: DataType.Float };
  for (const v of VALUES.verify) {
    const dataType = TYPES[v.node] ?? (v.node.startsWith("Signal_") ? DataType.Float : DataType.Double);
    // A UInt32 Variant cannot hold what the vector says is out of range: node-opcua would
    // coerce it, so the out-of-range Tick values are checked on a Double Variant (wrong type).
    const fits = dataType !== DataType.UInt32 || (v.value >= 0 && v.value < 2 ** 32);
    const variant = new Variant({ dataType: fits ? dataType : DataType.Double, arrayType: VariantArrayType.Scalar,
      value: v.value });
    assert.equal(verifyValue(v.node, variant) === null, v.valid, `${v.node} = ${v.value}`);
  }
});

test("write values and the nodes of each request", () => {
  for (const v of VALUES.write_value) {
    assert.equal(writeValue(v.session, v.request, v.nodes_per_request, v.position), v.value);
  }
  for (const v of VALUES.write_verification_value) assert.equal(writeVerificationValue(v.pattern, v.position), v.value);
  for (const v of VALUES.request_nodes) {
    const requests = new RequestNodes({ nodeId: (name) => `ns=1;s=${name}` }, v.nodes, v.nodes_per_request);
    assert.deepEqual(requests.of(v.request).names, v.result, `request ${v.request} of ${v.nodes_per_request}`);
  }
});
