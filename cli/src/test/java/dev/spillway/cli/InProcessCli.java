package dev.spillway.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/** The command line run in the test's JVM, with its standard output and error kept for assertions. */
final class InProcessCli
{
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();

    /** @return the exit status of {@code spillway args…}. */
    int run(final String... args)
    {
        final CommandLine cmd = SpillwayCli.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        return cmd.execute(args);
    }
}
