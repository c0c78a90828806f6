package org.uabench.milo;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.eclipse.milo.opcua.stack.core.NodeIds;
import org.eclipse.milo.opcua.stack.core.security.CertificateManager;
import org.eclipse.milo.opcua.stack.core.security.CertificateStore;
import org.eclipse.milo.opcua.stack.core.security.DefaultApplicationGroup;
import org.eclipse.milo.opcua.stack.core.security.DefaultCertificateManager;
import org.eclipse.milo.opcua.stack.core.security.DefaultServerCertificateValidator;
import org.eclipse.milo.opcua.stack.core.security.MemoryCertificateQuarantine;
import org.eclipse.milo.opcua.stack.core.security.MemoryCertificateStore;
import org.eclipse.milo.opcua.stack.core.security.MemoryTrustListManager;
import org.eclipse.milo.opcua.stack.core.security.SecurityPolicy;
import org.eclipse.milo.opcua.stack.core.types.builtin.ByteString;
import org.eclipse.milo.opcua.stack.core.types.builtin.NodeId;
import org.eclipse.milo.opcua.stack.core.types.enumerated.MessageSecurityMode;
import org.uabench.milo.Protocol.ConfigException;

/** Certificates, keys and the mapping of the contract's policy and mode names onto Milo's. */
final class Security {

  static {
    // Aes256_Sha256_RsaPss needs RSASSA-PSS, which Milo takes from BouncyCastle.
    java.security.Security.addProvider(new BouncyCastleProvider());
  }

  private Security() {}

  static SecurityPolicy policy(String name) {
    return SecurityPolicy.valueOf(name);
  }

  static MessageSecurityMode mode(String name) {
    return MessageSecurityMode.valueOf(name);
  }

  /** An application certificate (DER) and its private key (PEM, PKCS#8 or traditional RSA). */
  record Identity(X509Certificate certificate, KeyPair keyPair) {}

  static Identity loadIdentity(String certificatePath, String keyPath) throws ConfigException {
    X509Certificate certificate = loadCertificate(certificatePath, "security.certificate");
    PrivateKey privateKey = loadPrivateKey(keyPath, "security.private_key");
    return new Identity(certificate, new KeyPair(certificate.getPublicKey(), privateKey));
  }

  static X509Certificate loadCertificate(String path, String keyName) throws ConfigException {
    try (InputStream in = Files.newInputStream(Path.of(path))) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    } catch (java.nio.file.NoSuchFileException e) {
      throw new ConfigException("config: key '" + keyName + "': no such file " + path);
    } catch (IOException | CertificateException | ClassCastException e) {
      throw new ConfigException(
          "config: key '" + keyName + "': cannot load DER certificate " + path + ": " + e.getMessage());
    }
  }

  private static PrivateKey loadPrivateKey(String path, String keyName) throws ConfigException {
    try (Reader reader = Files.newBufferedReader(Path.of(path));
        PEMParser parser = new PEMParser(reader)) {
      Object pem = parser.readObject();
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      if (pem instanceof PEMKeyPair pair) {
        return converter.getKeyPair(pair).getPrivate();
      }
      if (pem instanceof PrivateKeyInfo info) {
        return converter.getPrivateKey(info);
      }
      throw new ConfigException(
          "config: key '" + keyName + "': " + path + " holds no unencrypted PEM private key");
    } catch (java.nio.file.NoSuchFileException e) {
      throw new ConfigException("config: key '" + keyName + "': no such file " + path);
    } catch (IOException e) {
      throw new ConfigException(
          "config: key '" + keyName + "': cannot load PEM private key " + path + ": " + e.getMessage());
    }
  }

  /**
   * The server's certificate manager: its own identity in memory, and a trust list holding only
   * the configured client certificates. Milo's DefaultServerCertificateValidator rejects any
   * client certificate that does not chain to that list, which is what the contract asks for.
   */
  static CertificateManager serverCertificates(Identity identity, List<X509Certificate> trusted)
      throws Exception {
    var quarantine = new MemoryCertificateQuarantine();
    if (identity == null) {
      return new DefaultCertificateManager(quarantine);
    }
    var trustList = new MemoryTrustListManager();
    trustList.setTrustedCertificates(trusted);
    NodeId rsaSha256 = NodeIds.RsaSha256ApplicationCertificateType;
    var store = new MemoryCertificateStore();
    store.set(
        rsaSha256,
        new CertificateStore.Entry(
            identity.keyPair().getPrivate(), new X509Certificate[] {identity.certificate()}));
    var group =
        new DefaultApplicationGroup(
            trustList, store, new NoCertificateFactory(),
            new DefaultServerCertificateValidator(trustList, quarantine));
    return new DefaultCertificateManager(quarantine, group);
  }

  /** The certificate comes from the config; the server never generates one. */
  private static final class NoCertificateFactory
      implements org.eclipse.milo.opcua.stack.core.security.CertificateFactory {
    @Override
    public KeyPair createKeyPair(NodeId certificateTypeId) {
      throw new UnsupportedOperationException("certificates come from the config");
    }

    @Override
    public X509Certificate[] createCertificateChain(NodeId certificateTypeId, KeyPair keyPair) {
      throw new UnsupportedOperationException("certificates come from the config");
    }

    @Override
    public ByteString createSigningRequest(
        NodeId certificateTypeId, KeyPair keyPair, org.bouncycastle.asn1.x500.X500Name subjectName,
        String sanUri, List<String> dnsNames, List<String> ipAddresses) {
      throw new UnsupportedOperationException("certificates come from the config");
    }
  }
}
