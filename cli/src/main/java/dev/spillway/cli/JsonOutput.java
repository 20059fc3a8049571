package dev.spillway.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;

/** The {@code --json FILE} option of the benchmarks: results as JSON, with snake_case keys. */
final class JsonOutput
{
    private static final ObjectMapper MAPPER = new ObjectMapper()
        .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
        .enable(SerializationFeature.INDENT_OUTPUT);

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results to FILE as JSON.")
    private Path file;

    /** Writes {@code result} to the file, if one was given. */
    void write(final Object result) throws IOException
    {
        if (file != null)
        {
            MAPPER.writeValue(file.toFile(), result);
        }
    }
}
