package dev.spillway.cli;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/** The command line of a child JVM that runs {@link SpillwayCli} with this JVM's flags and class path. */
final class ChildJvm
{
    private ChildJvm()
    {
    }

    /** @return {@code java <this JVM's flags but heap sizes and agents> -Xms64m -Xmx<heap> -cp ... SpillwayCli args}. */
    static List<String> command(final String heap, final List<String> args)
    {
        return command(heap, List.of(), args, false);
    }

    /**
     * @param flags JVM flags added after this JVM's, which replace any {@code -Dspillway.crashAt…} and
     *              {@code -Dspillway.flip…} of this JVM's.
     * @return as {@link #command(String, List)}, with {@code flags}.
     */
    static List<String> command(final String heap, final List<String> flags, final List<String> args)
    {
        return command(heap, flags, args, true);
    }

    private static List<String> command(final String heap, final List<String> flags, final List<String> args,
        final boolean ownCrashPoints)
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        for (final String a : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (!a.startsWith("-Xmx") && !a.startsWith("-Xms") && !a.startsWith("-agentlib") &&
                !a.startsWith("-javaagent") && !(ownCrashPoints && (a.startsWith("-Dspillway.crashAt") || a.startsWith("-Dspillway.flip"))))
            {
                cmd.add(a);
            }
        }
        cmd.addAll(flags);
        cmd.addAll(List.of("-Xms64m", "-Xmx" + heap, "-cp", System.getProperty("java.class.path"),
            SpillwayCli.class.getName()));
        cmd.addAll(args);
        return cmd;
    }
}
