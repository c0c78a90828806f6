package org.uabench.milo;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.uabench.milo.Protocol.ConfigException;

/**
 * The contract's JSON Schema (contract/schema, packaged in the jar as schema/*.json), checked with
 * networknt's json-schema-validator. A violation becomes the SPEC §2 config error that names the
 * key: "config: unknown key 'x'", "config: missing required key 'x'" or "config: key 'x' ...".
 */
final class Schema {

  private static final String PREFIX = "urn:uabench:contract:";
  private static final List<String> DOCUMENTS =
      List.of("common", "server", "client", "publisher", "subscriber", "result", "event", "capabilities");
  private static final JsonSchemaFactory FACTORY =
      JsonSchemaFactory.getInstance(
          SpecVersion.VersionFlag.V202012,
          builder -> builder.schemaLoaders(loaders -> loaders.schemas(documents())));
  private static final Map<String, JsonSchema> LOADED = new HashMap<>();

  private Schema() {}

  private static final Set<String> UNKNOWN_KEY = Set.of("additionalProperties", "unevaluatedProperties");

  /**
   * The order uabench_contract.validation reports problems in: a value error names its own key,
   * while an unknown-key error on the same object may only follow from it (a failed subschema
   * evaluates no keys), so those go last; deeper keys first.
   */
  private static final Comparator<ValidationMessage> FIRST_REPORTED =
      Comparator.<ValidationMessage, Boolean>comparing(m -> UNKNOWN_KEY.contains(m.getType()))
          .thenComparing(m -> -depth(m.getInstanceLocation().toString()))
          .thenComparing(m -> m.getInstanceLocation().toString());

  /**
   * Throws the config error of the first violation of the schema `name` by `config`. Keys the
   * schema cannot judge (an integer written as 4840.0, rules across keys) are left to Config.
   */
  static void validate(String name, JsonNode config) throws ConfigException {
    Optional<ValidationMessage> first = schema(name).validate(config).stream().min(FIRST_REPORTED);
    if (first.isPresent()) {
      throw new ConfigException(message(first.get()));
    }
  }

  private static int depth(String location) {
    return (int) location.chars().filter(c -> c == '.' || c == '[').count();
  }

  private static synchronized JsonSchema schema(String name) {
    return LOADED.computeIfAbsent(
        name,
        n -> {
          SchemaValidatorsConfig config =
              SchemaValidatorsConfig.builder().pathType(com.networknt.schema.PathType.LEGACY).build();
          return FACTORY.getSchema(com.networknt.schema.SchemaLocation.of(PREFIX + n), config);
        });
  }

  static String message(ValidationMessage problem) {
    // Instance location "$.security.endpoints[0]" is the key "security.endpoints[0]".
    String at = problem.getInstanceLocation().toString().replaceFirst("^\\$\\.?", "");
    String property = problem.getProperty();
    String key = property == null ? at : at.isEmpty() ? property : at + "." + property;
    return switch (problem.getType()) {
      case "additionalProperties", "unevaluatedProperties" -> "config: unknown key '" + key + "'";
      case "required" -> "config: missing required key '" + key + "'";
      default -> "config: key '" + at + "' " + problem.getMessage().replaceFirst("^\\S*: ", "")
          + (problem.getInstanceNode() == null ? "" : ", got " + problem.getInstanceNode());
    };
  }

  private static Map<String, String> documents() {
    Map<String, String> out = new HashMap<>();
    for (String name : DOCUMENTS) {
      try (InputStream in = Schema.class.getResourceAsStream("/schema/" + name + ".json")) {
        if (in == null) {
          throw new IllegalStateException("schema/" + name + ".json is not in the jar");
        }
        out.put(PREFIX + name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }
}
