package dev.spillway.cli;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Which command produced a result: the first keys of {@code run --json}.
 *
 * @param version   the spillway version.
 * @param command   the command line as given, from {@code spillway} on.
 * @param startedAt when the command started.
 */
record Invocation(String version, List<String> command, Instant startedAt)
{
    /** @return the invocation of {@code spillway args…}, started now. */
    static Invocation now(final List<String> args)
    {
        final List<String> command = new ArrayList<>(args.size() + 1);
        command.add("spillway");
        command.addAll(args);
        return new Invocation(SpillwayCli.Version.number(), List.copyOf(command), Instant.now());
    }
}
