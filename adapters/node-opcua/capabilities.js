// What this adapter declares (SPEC §2); must agree with implementations/node-opcua/sdk.toml.
import fs from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** The node-opcua version actually loaded, read from the package that resolves at run time. */
export const SDK_VERSION = JSON.parse(fs.readFileSync(require.resolve("node-opcua/package.json"), "utf8")).version;

export const SECURITY = [
  { policy: "None", mode: "None" },
  ...["Basic256Sha256", "Aes128_Sha256_RsaOaep", "Aes256_Sha256_RsaPss"].flatMap((policy) =>
    ["Sign", "SignAndEncrypt"].map((mode) => ({ policy, mode }))),
];

export const WORKLOADS = ["read", "write", "subscribe"];

export function capabilities() {
  return {
    sdk: "node-opcua",
    version: SDK_VERSION,
    language: "JavaScript",
    roles: ["server", "client"],
    workloads: WORKLOADS,
    security: SECURITY,
  };
}
