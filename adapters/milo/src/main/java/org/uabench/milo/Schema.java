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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

  /** Throws the config error of the first violation of the schema `name` by `config`. */
  static void validate(String name, JsonNode config) throws ConfigException {
    Set<ValidationMessage> problems = schema(name).validate(config);
    if (!problems.isEmpty()) {
      throw new ConfigException(message(problems.iterator().next()));
    }
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
    if (property == null && problem.getType().equals("unevaluatedProperties")
        && problem.getArguments() != null && problem.getArguments().length > 0) {
      property = String.valueOf(problem.getArguments()[0]);
    }
    String key = property == null ? at : at.isEmpty() ? property : at + "." + property;
    return switch (problem.getType()) {
      case "additionalProperties", "unevaluatedProperties" -> "config: unknown key '" + key + "'";
      case "required" -> "config: missing required key '" + key + "'";
      default -> "config: key '" + at + "' " + problem.getMessage().replaceFirst("^\\S*: ", "");
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
