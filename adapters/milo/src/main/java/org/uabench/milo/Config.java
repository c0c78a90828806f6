package org.uabench.milo;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.uabench.milo.Protocol.ConfigException;

/**
 * Config validation of SPEC §3: first against contract/schema ({@link Schema}), then what the
 * schema cannot say, mirroring the Python contract package uabench_contract. Every unknown key,
 * wrong type or out-of-range value is a {@link ConfigException} naming the key, raised before any
 * connection is made. The validated config keeps the key order and fills in defaults, so it can
 * be echoed back as "the config as run".
 */
final class Config {

  static final List<String> POLICIES =
      List.of("None", "Basic256Sha256", "Aes128_Sha256_RsaOaep", "Aes256_Sha256_RsaPss");
  static final List<String> MODES = List.of("None", "Sign", "SignAndEncrypt");
  static final List<String> WORKLOADS = List.of("read", "write", "subscribe");

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private enum Kind { INT, NUMBER, BOOL, STRING, STRINGS, OBJECT, CHOICE, ENDPOINTS }

  private record Key(
      Kind kind, JsonNode fallback, Double low, Double high, boolean required, boolean nullable,
      List<String> choices) {}

  private static Key key(Kind kind, JsonNode fallback) {
    return new Key(kind, fallback, null, null, false, false, List.of());
  }

  private static Key ranged(Kind kind, JsonNode fallback, double low, double high) {
    return new Key(kind, fallback, low, high, false, false, List.of());
  }

  private static Key required(Kind kind, double low, double high) {
    return new Key(kind, NODES.nullNode(), low, high, true, false, List.of());
  }

  private static Key required(Kind kind) {
    return new Key(kind, NODES.nullNode(), null, null, true, false, List.of());
  }

  private static Key nullable(Kind kind) {
    return new Key(kind, NODES.nullNode(), null, null, false, true, List.of());
  }

  private static Key choice(JsonNode fallback, boolean required, List<String> choices) {
    return new Key(Kind.CHOICE, fallback, null, null, required, false, choices);
  }

  private static final Map<String, Key> SERVER_KEYS = new LinkedHashMap<>();
  private static final Map<String, Key> SERVER_SECURITY_KEYS = new LinkedHashMap<>();
  private static final Map<String, Key> CLIENT_KEYS = new LinkedHashMap<>();
  private static final Map<String, Key> CLIENT_SECURITY_KEYS = new LinkedHashMap<>();
  private static final Map<String, Key> REQUEST_KEYS = new LinkedHashMap<>();
  private static final Map<String, Key> SUBSCRIBE_KEYS = new LinkedHashMap<>();
  private static final Map<String, Key> ENDPOINT_KEYS = new LinkedHashMap<>();

  static {
    SERVER_KEYS.put("host", key(Kind.STRING, NODES.textNode("127.0.0.1")));
    SERVER_KEYS.put("port", required(Kind.INT, 1, 65535));
    SERVER_KEYS.put("signals", ranged(Kind.INT, NODES.numberNode(1000), 0, 100000));
    SERVER_KEYS.put("update_interval_ms", ranged(Kind.INT, NODES.numberNode(100), 0, 60000));
    SERVER_KEYS.put("writes", ranged(Kind.INT, NODES.numberNode(100), 0, 100000));
    SERVER_KEYS.put("security", key(Kind.OBJECT, NODES.nullNode()));
    SERVER_KEYS.put("nodesets", key(Kind.STRINGS, NODES.nullNode()));

    SERVER_SECURITY_KEYS.put("endpoints", key(Kind.ENDPOINTS, NODES.nullNode()));
    SERVER_SECURITY_KEYS.put("certificate", nullable(Kind.STRING));
    SERVER_SECURITY_KEYS.put("private_key", nullable(Kind.STRING));
    SERVER_SECURITY_KEYS.put("application_uri", key(Kind.STRING, NODES.textNode("urn:uabench:server")));
    SERVER_SECURITY_KEYS.put("trusted_certificates", key(Kind.STRINGS, NODES.nullNode()));

    CLIENT_KEYS.put("endpoint", required(Kind.STRING));
    CLIENT_KEYS.put("workload", choice(NODES.nullNode(), true, WORKLOADS));
    CLIENT_KEYS.put("security", key(Kind.OBJECT, NODES.nullNode()));
    CLIENT_KEYS.put("sessions", ranged(Kind.INT, NODES.numberNode(1), 1, 1000));
    CLIENT_KEYS.put("warmup_s", ranged(Kind.NUMBER, NODES.numberNode(1), 0, 3600));
    CLIENT_KEYS.put("duration_s", ranged(Kind.NUMBER, NODES.numberNode(5), 0.1, 86400));
    CLIENT_KEYS.put("verify", key(Kind.BOOL, NODES.booleanNode(true)));
    CLIENT_KEYS.put("timeline_ms", ranged(Kind.INT, NODES.numberNode(100), 10, 10000));
    CLIENT_KEYS.put("reconnect", key(Kind.BOOL, NODES.booleanNode(false)));
    // null: Sessions' own timeouts (its 10 s request timeout, Milo's transport defaults).
    CLIENT_KEYS.put(
        "request_timeout_ms",
        new Key(Kind.INT, NODES.nullNode(), 100.0, 3_600_000.0, false, true, List.of()));
    CLIENT_KEYS.put("nodes", required(Kind.STRINGS));

    CLIENT_SECURITY_KEYS.put("policy", choice(NODES.textNode("None"), false, POLICIES));
    CLIENT_SECURITY_KEYS.put("mode", choice(NODES.textNode("None"), false, MODES));
    CLIENT_SECURITY_KEYS.put("certificate", nullable(Kind.STRING));
    CLIENT_SECURITY_KEYS.put("private_key", nullable(Kind.STRING));
    CLIENT_SECURITY_KEYS.put("application_uri", key(Kind.STRING, NODES.textNode("urn:uabench:client")));

    REQUEST_KEYS.put("nodes_per_request", ranged(Kind.INT, NODES.numberNode(1), 1, 10000));
    REQUEST_KEYS.put("in_flight", ranged(Kind.INT, NODES.numberNode(1), 1, 10000));
    REQUEST_KEYS.put(
        "rate", new Key(Kind.NUMBER, NODES.nullNode(), 1e-9, 1e9, false, true, List.of()));
    REQUEST_KEYS.put("think_ms", ranged(Kind.NUMBER, NODES.numberNode(0), 0, 60000));
    REQUEST_KEYS.put("record_latencies", key(Kind.BOOL, NODES.booleanNode(false)));

    SUBSCRIBE_KEYS.put("subscriptions", ranged(Kind.INT, NODES.numberNode(1), 1, 1000));
    SUBSCRIBE_KEYS.put("publishing_interval_ms", ranged(Kind.NUMBER, NODES.numberNode(100), 1, 60000));
    SUBSCRIBE_KEYS.put("sampling_interval_ms", ranged(Kind.NUMBER, NODES.numberNode(100), 0, 60000));
    SUBSCRIBE_KEYS.put("queue_size", ranged(Kind.INT, NODES.numberNode(1), 1, 10000));

    ENDPOINT_KEYS.put("policy", CLIENT_SECURITY_KEYS.get("policy"));
    ENDPOINT_KEYS.put("mode", CLIENT_SECURITY_KEYS.get("mode"));
  }

  private Config() {}

  /** One security endpoint: a policy and a mode. */
  record Endpoint(String policy, String mode) {}

  record ServerSecurity(
      List<Endpoint> endpoints, String certificate, String privateKey, String applicationUri,
      List<String> trustedCertificates) {}

  record Server(
      String host, int port, int signals, int updateIntervalMs, int writes,
      ServerSecurity security, List<String> nodesets, ObjectNode asRun) {}

  record ClientSecurity(
      String policy, String mode, String certificate, String privateKey, String applicationUri) {}

  record Client(
      String endpoint, String workload, ClientSecurity security, int sessions, double warmupS,
      double durationS, boolean verify, int timelineMs, boolean reconnect,
      Integer requestTimeoutMs, List<String> nodes, int nodesPerRequest, int inFlight,
      Double rate, double thinkMs, boolean recordLatencies, int subscriptions,
      double publishingIntervalMs, double samplingIntervalMs, int queueSize, ObjectNode asRun) {}

  /** SPEC §2 "unreadable config": limits applied before any key is looked at. */
  static final int CONFIG_MAX_BYTES = 16 * 1024 * 1024;

  static final int CONFIG_MAX_DEPTH = 64;

  // Jackson counts nesting as SPEC does (the top object is depth 1) and refuses more before
  // it builds anything; trailing tokens after the object are refused, as by every other adapter.
  private static final ObjectMapper CONFIG_JSON =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder().maxNestingDepth(CONFIG_MAX_DEPTH).build())
                  .build())
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  static ObjectNode load(String path) throws ConfigException {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(Path.of(path))) {
      bytes = in.readNBytes(CONFIG_MAX_BYTES + 1);
    } catch (java.nio.file.NoSuchFileException e) {
      throw new ConfigException("config: cannot read " + path + ": No such file or directory");
    } catch (IOException e) {
      throw new ConfigException("config: cannot read " + path + ": " + e.getMessage());
    }
    if (bytes.length > CONFIG_MAX_BYTES) {
      throw new ConfigException("config: " + path + " is larger than " + CONFIG_MAX_BYTES + " bytes");
    }
    String text;
    try {
      // newDecoder() reports malformed input (String's constructor would replace it with U+FFFD).
      text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new ConfigException("config: " + path + " is not UTF-8");
    }
    JsonNode raw;
    try {
      raw = CONFIG_JSON.readTree(text);
    } catch (StreamConstraintsException e) {
      throw new ConfigException(
          "config: " + path + " is nested deeper than " + CONFIG_MAX_DEPTH + " levels");
    } catch (JsonProcessingException e) {
      throw new ConfigException(
          "config: " + path + " is not valid JSON: " + e.getOriginalMessage());
    }
    if (raw == null || raw.isMissingNode()) {  // Jackson's answer to a file with no value
      throw new ConfigException("config: " + path + " is not valid JSON: no value");
    }
    String problem = badString(raw);
    if (problem != null) {
      throw new ConfigException("config: " + path + " is not valid JSON: a string holds " + problem);
    }
    if (!raw.isObject()) {
      throw new ConfigException("config: " + path + " must hold a JSON object");
    }
    return (ObjectNode) raw;
  }

  /** A string no UTF-8 text can hold (an escaped unpaired surrogate) or one holding U+0000. */
  private static String badString(JsonNode node) {
    if (node == null) {
      return null;
    }
    if (node.isTextual()) {
      return badString(node.textValue());
    }
    Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      String problem = badString(field.getKey());
      if (problem == null) {
        problem = badString(field.getValue());
      }
      if (problem != null) {
        return problem;
      }
    }
    for (JsonNode child : node.isArray() ? node : List.<JsonNode>of()) {
      String problem = badString(child);
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  private static String badString(String text) {
    if (text.indexOf('\0') >= 0) {
      return "\\u0000";
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return "an unpaired surrogate";
      }
    }
    return null;
  }

  static Server server(ObjectNode raw) throws ConfigException {
    Schema.validate("server", raw);
    ObjectNode config = fill(raw, SERVER_KEYS, "");
    JsonNode securityRaw = config.get("security");
    ObjectNode security =
        fill(securityRaw.isNull() ? NODES.objectNode() : (ObjectNode) securityRaw,
            SERVER_SECURITY_KEYS, "security.");
    if (security.get("endpoints").isNull()) {
      ArrayNode none = NODES.arrayNode();
      none.addObject().put("policy", "None").put("mode", "None");
      security.set("endpoints", none);
    }
    if (security.get("trusted_certificates").isNull()) {
      security.set("trusted_certificates", NODES.arrayNode());
    }
    List<Endpoint> endpoints = new ArrayList<>();
    for (JsonNode e : security.get("endpoints")) {
      endpoints.add(new Endpoint(e.get("policy").asText(), e.get("mode").asText()));
    }
    boolean secure = endpoints.stream().anyMatch(e -> !e.policy().equals("None"));
    if (secure && (security.get("certificate").isNull() || security.get("private_key").isNull())) {
      throw new ConfigException(
          "config: key 'security.certificate' and 'security.private_key' are required for a "
              + "secure endpoint");
    }
    config.set("security", security);
    if (config.get("nodesets").isNull()) {  // default [], a fresh list per config
      config.set("nodesets", NODES.arrayNode());
    }
    return new Server(
        config.get("host").asText(),
        config.get("port").asInt(),
        config.get("signals").asInt(),
        config.get("update_interval_ms").asInt(),
        config.get("writes").asInt(),
        new ServerSecurity(
            endpoints,
            textOrNull(security.get("certificate")),
            textOrNull(security.get("private_key")),
            security.get("application_uri").asText(),
            strings(security.get("trusted_certificates"))),
        strings(config.get("nodesets")),
        config);
  }

  static Client client(ObjectNode raw) throws ConfigException {
    Schema.validate("client", raw);
    Map<String, Key> keys = new LinkedHashMap<>(CLIENT_KEYS);
    String workload = raw.path("workload").asText("");
    if (workload.equals("read") || workload.equals("write")) {
      keys.putAll(REQUEST_KEYS);
    } else if (workload.equals("subscribe")) {
      keys.putAll(SUBSCRIBE_KEYS);
    }
    ObjectNode config = fill(raw, keys, "");
    String endpoint = config.get("endpoint").asText();
    if (!endpoint.startsWith("opc.tcp://")) {
      throw new ConfigException(
          "config: key 'endpoint' must start with opc.tcp://, got " + quote(endpoint));
    }
    JsonNode securityRaw = config.get("security");
    ObjectNode security =
        fill(securityRaw.isNull() ? NODES.objectNode() : (ObjectNode) securityRaw,
            CLIENT_SECURITY_KEYS, "security.");
    String policy = security.get("policy").asText();
    String mode = security.get("mode").asText();
    checkPolicyMode(policy, mode, "security");
    if (!policy.equals("None")
        && (security.get("certificate").isNull() || security.get("private_key").isNull())) {
      throw new ConfigException(
          "config: key 'security.certificate' and 'security.private_key' are required for policy "
              + policy);
    }
    config.set("security", security);
    double thinkMs = config.path("think_ms").asDouble(0);
    if (thinkMs > 0 && config.path("rate").isNumber()) {
      throw new ConfigException(
          "config: key 'think_ms' is the closed loop's wait between a response and the next "
              + "request; it cannot be " + config.get("think_ms") + " with a rate (open loop)");
    }
    return new Client(
        endpoint,
        workload,
        new ClientSecurity(
            policy, mode,
            textOrNull(security.get("certificate")),
            textOrNull(security.get("private_key")),
            security.get("application_uri").asText()),
        config.get("sessions").asInt(),
        config.get("warmup_s").asDouble(),
        config.get("duration_s").asDouble(),
        config.get("verify").asBoolean(),
        config.get("timeline_ms").asInt(),
        config.get("reconnect").asBoolean(),
        config.get("request_timeout_ms").isNull() ? null : config.get("request_timeout_ms").asInt(),
        strings(config.get("nodes")),
        config.path("nodes_per_request").asInt(1),
        config.path("in_flight").asInt(1),
        config.path("rate").isNumber() ? config.get("rate").asDouble() : null,
        thinkMs,
        config.path("record_latencies").asBoolean(false),
        config.path("subscriptions").asInt(1),
        config.path("publishing_interval_ms").asDouble(100),
        config.path("sampling_interval_ms").asDouble(100),
        config.path("queue_size").asInt(1),
        config);
  }

  private static ObjectNode fill(ObjectNode raw, Map<String, Key> keys, String prefix)
      throws ConfigException {
    for (Iterator<String> names = raw.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!keys.containsKey(name)) {
        throw new ConfigException("config: unknown key '" + prefix + name + "'");
      }
    }
    ObjectNode out = NODES.objectNode();
    for (Map.Entry<String, Key> entry : keys.entrySet()) {
      String name = entry.getKey();
      Key key = entry.getValue();
      if (raw.has(name)) {
        out.set(name, check(prefix + name, key, raw.get(name)));
      } else if (key.required()) {
        throw new ConfigException("config: missing required key '" + prefix + name + "'");
      } else {
        out.set(name, key.fallback());
      }
    }
    return out;
  }

  private static JsonNode check(String name, Key key, JsonNode value) throws ConfigException {
    if (value.isNull()) {
      if (key.nullable()) {
        return value;
      }
      throw new ConfigException("config: key '" + name + "' must not be null");
    }
    switch (key.kind()) {
      case INT -> {
        if (!value.isIntegralNumber()) {
          throw new ConfigException(
              "config: key '" + name + "' must be an integer, got " + value);
        }
      }
      case NUMBER -> {
        if (!value.isNumber() || !Double.isFinite(value.asDouble())) {
          throw new ConfigException("config: key '" + name + "' must be a number, got " + value);
        }
      }
      case BOOL -> {
        if (!value.isBoolean()) {
          throw new ConfigException(
              "config: key '" + name + "' must be true or false, got " + value);
        }
      }
      case STRING -> {
        if (!value.isTextual() || value.asText().isEmpty()) {
          throw new ConfigException(
              "config: key '" + name + "' must be a non-empty string, got " + value);
        }
      }
      case CHOICE -> {
        if (!value.isTextual() || !key.choices().contains(value.asText())) {
          throw new ConfigException(
              "config: key '" + name + "' must be one of " + String.join(", ", key.choices())
                  + ", got " + value);
        }
      }
      case STRINGS -> {
        boolean ok = value.isArray();
        for (JsonNode item : value) {
          ok &= item.isTextual() && !item.asText().isEmpty();
        }
        if (!ok) {
          throw new ConfigException("config: key '" + name + "' must be a list of strings");
        }
        if (name.equals("nodes") && value.isEmpty()) {
          throw new ConfigException("config: key 'nodes' must not be empty");
        }
      }
      case OBJECT -> {
        if (!value.isObject()) {
          throw new ConfigException("config: key '" + name + "' must be an object");
        }
      }
      case ENDPOINTS -> {
        if (!value.isArray() || value.isEmpty()) {
          throw new ConfigException(
              "config: key '" + name + "' must be a non-empty list of {policy, mode}");
        }
        ArrayNode pairs = NODES.arrayNode();
        for (int i = 0; i < value.size(); i++) {
          pairs.add(securityPair(name + "[" + i + "]", value.get(i)));
        }
        return pairs;
      }
    }
    if (key.low() != null) {
      double number = value.asDouble();
      if (value.isBigInteger() || number < key.low() || number > key.high()) {
        throw new ConfigException(
            "config: key '" + name + "' = " + value + " is out of range [" + format(key.low())
                + ", " + format(key.high()) + "]");
      }
    }
    return value;
  }

  private static ObjectNode securityPair(String name, JsonNode entry) throws ConfigException {
    if (!entry.isObject()) {
      throw new ConfigException(
          "config: key '" + name + "' must be an object with policy and mode");
    }
    ObjectNode out = fill((ObjectNode) entry, ENDPOINT_KEYS, name + ".");
    checkPolicyMode(out.get("policy").asText(), out.get("mode").asText(), name);
    return out;
  }

  private static void checkPolicyMode(String policy, String mode, String where)
      throws ConfigException {
    if (policy.equals("None") != mode.equals("None")) {
      throw new ConfigException(
          "config: key '" + where + "' pairs policy " + policy + " with mode " + mode);
    }
  }

  private static String format(double bound) {
    return bound == Math.rint(bound) && Math.abs(bound) < 1e15
        ? Long.toString((long) bound)
        : Double.toString(bound);
  }

  private static String quote(String text) {
    return NODES.textNode(text).toString();
  }

  private static String textOrNull(JsonNode node) {
    return node == null || node.isNull() ? null : node.asText();
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>(array.size());
    array.forEach(item -> out.add(item.asText()));
    return out;
  }
}
