//! Security policies, modes and PKI folders. async-opcua reads its own certificate and private
//! key from a PKI directory (`.der`/`.pem` by file extension) and trusts a peer whose DER
//! certificate lies in `<pki>/trusted` under the SDK's own file name for it, so each role
//! stages a private temporary PKI directory from the config's files.

use std::path::{Path, PathBuf};

use opcua::crypto::{CertificateStore, SecurityPolicy, X509};
use opcua::types::MessageSecurityMode;

use crate::json_out::Failure;

pub const POLICIES: [&str; 4] = [
    "None",
    "Basic256Sha256",
    "Aes128_Sha256_RsaOaep",
    "Aes256_Sha256_RsaPss",
];

pub fn policy(name: &str) -> SecurityPolicy {
    match name {
        "Basic256Sha256" => SecurityPolicy::Basic256Sha256,
        "Aes128_Sha256_RsaOaep" => SecurityPolicy::Aes128Sha256RsaOaep,
        "Aes256_Sha256_RsaPss" => SecurityPolicy::Aes256Sha256RsaPss,
        _ => SecurityPolicy::None,
    }
}

pub fn mode(name: &str) -> MessageSecurityMode {
    match name {
        "Sign" => MessageSecurityMode::Sign,
        "SignAndEncrypt" => MessageSecurityMode::SignAndEncrypt,
        _ => MessageSecurityMode::None,
    }
}

/// A temporary folder, removed when dropped (the roles drop it before they exit).
pub struct WorkFolder {
    pub path: PathBuf,
}

impl WorkFolder {
    pub fn new(role: &str) -> Result<Self, Failure> {
        let unique = format!(
            "uabench-async-opcua-{role}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        );
        let path = std::env::temp_dir().join(unique);
        for sub in ["own", "private", "trusted", "rejected"] {
            std::fs::create_dir_all(path.join(sub))
                .map_err(|e| Failure::Runtime(format!("cannot create {}: {e}", path.display())))?;
        }
        Ok(WorkFolder { path })
    }
}

impl Drop for WorkFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

fn read_certificate(key: &str, file: &Path) -> Result<X509, Failure> {
    let bytes = std::fs::read(file)
        .map_err(|e| Failure::Config(format!("config: key '{key}': cannot read {}: {e}", file.display())))?;
    let parsed = if bytes.starts_with(b"-----") {
        X509::from_pem(&bytes)
    } else {
        X509::from_der(&bytes)
    };
    parsed.map_err(|e| {
        Failure::Config(format!(
            "config: key '{key}': {} is not a certificate: {e:?}",
            file.display()
        ))
    })
}

/// Copies the application's certificate (as DER) and private key (PEM, PKCS#8 or traditional
/// RSA: the SDK reads both) into the folder; returns their paths there.
pub fn stage_key_pair(
    folder: &WorkFolder,
    certificate: &Path,
    private_key: &Path,
) -> Result<(PathBuf, PathBuf), Failure> {
    let cert = read_certificate("security.certificate", certificate)?;
    let der = cert
        .to_der()
        .map_err(|e| Failure::Runtime(format!("certificate: {e:?}")))?;
    let cert_path = folder.path.join("own/cert.der");
    let key_path = folder.path.join("private/private.pem");
    std::fs::write(&cert_path, der).map_err(|e| Failure::Runtime(format!("{}: {e}", cert_path.display())))?;
    std::fs::copy(private_key, &key_path).map_err(|e| {
        Failure::Config(format!(
            "config: key 'security.private_key': cannot read {}: {e}",
            private_key.display()
        ))
    })?;
    CertificateStore::read_pkey(&key_path).map_err(|e| {
        Failure::Config(format!(
            "config: key 'security.private_key': {}: {e}",
            private_key.display()
        ))
    })?;
    Ok((cert_path, key_path))
}

/// Server PKI: exactly the configured client certificates are trusted; any other is rejected
/// by the SDK's certificate store (trust_client_certs stays false).
pub fn stage_trusted(folder: &WorkFolder, trusted: &[PathBuf]) -> Result<(), Failure> {
    for (i, file) in trusted.iter().enumerate() {
        let cert = read_certificate(&format!("security.trusted_certificates[{i}]"), file)?;
        let der = cert
            .to_der()
            .map_err(|e| Failure::Runtime(format!("certificate: {e:?}")))?;
        let target = folder
            .path
            .join("trusted")
            .join(CertificateStore::cert_file_name(&cert));
        std::fs::write(&target, der).map_err(|e| Failure::Runtime(format!("{}: {e}", target.display())))?;
    }
    Ok(())
}
