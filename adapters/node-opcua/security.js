// Certificates and PKI folders. node-opcua reads PEM (it decides by file extension), while
// the contract hands us a DER certificate and a PEM key in either PKCS#8 or traditional RSA
// form, so both are normalised into a private temporary folder first.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MessageSecurityMode, OPCUACertificateManager, SecurityPolicy } from "node-opcua";

export const POLICY = {
  None: SecurityPolicy.None,
  Basic256Sha256: SecurityPolicy.Basic256Sha256,
  Aes128_Sha256_RsaOaep: SecurityPolicy.Aes128_Sha256_RsaOaep,
  Aes256_Sha256_RsaPss: SecurityPolicy.Aes256_Sha256_RsaPss,
};

export const MODE = {
  None: MessageSecurityMode.None,
  Sign: MessageSecurityMode.Sign,
  SignAndEncrypt: MessageSecurityMode.SignAndEncrypt,
};

/** A temporary folder removed again at exit, whatever the exit path. */
export function makeWorkFolder(role) {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `uabench-node-opcua-${role}-`));
  process.on("exit", () => fs.rmSync(folder, { recursive: true, force: true }));
  return folder;
}

function certificateDer(file) {
  const bytes = fs.readFileSync(file);
  return bytes.subarray(0, 10).toString("latin1").startsWith("-----")
    ? Buffer.from(new crypto.X509Certificate(bytes).raw)
    : bytes;
}

/** Writes PEM copies of a certificate/key pair into `folder`; returns their paths. */
export function stageKeyPair(folder, certificateFile, privateKeyFile) {
  const certificate = new crypto.X509Certificate(certificateDer(certificateFile));
  const privateKey = crypto.createPrivateKey(fs.readFileSync(privateKeyFile));
  const staged = {
    certificateFile: path.join(folder, "certificate.pem"),
    privateKeyFile: path.join(folder, "private_key.pem"),
  };
  fs.writeFileSync(staged.certificateFile, certificate.toString());
  fs.writeFileSync(staged.privateKeyFile, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
  return staged;
}

/** Server PKI: only the configured client certificates are trusted, every other one is rejected. */
export async function serverCertificateManager(folder, trustedCertificateFiles) {
  const manager = new OPCUACertificateManager({
    rootFolder: path.join(folder, "pki"),
    automaticallyAcceptUnknownCertificate: false,
    disableFileWatchers: true,
  });
  await manager.initialize();
  for (const file of trustedCertificateFiles) await manager.trustCertificate(certificateDer(file));
  return manager;
}

/** Client PKI: per SPEC §3 the client trusts whatever server certificate it is offered. */
export async function clientCertificateManager(folder) {
  const manager = new OPCUACertificateManager({
    rootFolder: path.join(folder, "pki"),
    automaticallyAcceptUnknownCertificate: true,
    disableFileWatchers: true,
  });
  await manager.initialize();
  return manager;
}
