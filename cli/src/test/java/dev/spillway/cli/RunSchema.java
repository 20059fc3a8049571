package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@code run.schema.json}, which documents every key of {@code run --json}, as a check on real output. */
final class RunSchema
{
    private static final JsonSchema SCHEMA = load();

    private RunSchema()
    {
    }

    /** @return what {@code json} breaks of the schema; empty when it conforms. */
    static Set<ValidationMessage> violations(final JsonNode json)
    {
        return SCHEMA.validate(json);
    }

    /** Fails, naming every violation, unless {@code json} conforms to the schema. */
    static void assertConforms(final JsonNode json)
    {
        assertEquals(Set.of(), violations(json), () -> "run --json breaks run.schema.json: " + json);
    }

    private static JsonSchema load()
    {
        try (InputStream in = RunSummary.class.getResourceAsStream("run.schema.json"))
        {
            final SchemaValidatorsConfig config = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true)
                .build();
            return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in, config);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }
}
