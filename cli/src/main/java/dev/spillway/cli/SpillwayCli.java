package dev.spillway.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Properties;

/**
 * The {@code spillway} command line. Bad arguments print {@code spillway: <message>} and a line pointing at the
 * command's {@code --help}, and exit with 2; a failure at run time
 * prints one line, {@code spillway: <message>}, and exits with 1 (with the stack trace under {@code --verbose} or
 * {@code SPILLWAY_DEBUG=1}). SIGINT and SIGTERM print {@code spillway: interrupted}, stop the command and exit with
 * 130 or 143 ({@link Interrupts}).
 */
@Command(name = "spillway", mixinStandardHelpOptions = true,
    footer = {"", "Examples:",
        "  spillway run lu --n 8192 --dram 12.5%% --json lu.json",
        "  spillway launch -n 2 run lu --n 8192",
        "  spillway bench kernels --quick",
        "  spillway plan --ranks 16 --hosts 4 --mtbf 2592000",
        "  spillway help run"},
    versionProvider = SpillwayCli.Version.class,
    description = "Spillway, an out-of-core dataflow task runtime for the JVM.",
    subcommands = {RunCommand.class, LaunchCommand.class, BenchCommand.class, PlanCommand.class,
        CommandLine.HelpCommand.class})
public final class SpillwayCli
{
    @Option(names = "--verbose", scope = ScopeType.INHERIT, description = "Print the stack trace of a failure.")
    private boolean verbose;

    /** Runs the command line and exits with its status (130 or 143 after SIGINT or SIGTERM). */
    public static void main(final String[] args)
    {
        TerminalLog.install();
        Interrupts.install();
        Interrupts.exit(commandLine().execute(args));
    }

    /** @return a command line with the one-line failure reporting; call {@link CommandLine#execute} on it. */
    public static CommandLine commandLine()
    {
        final SpillwayCli cli = new SpillwayCli();
        final CommandLine cmd = new CommandLine(cli);
        cmd.setCaseInsensitiveEnumValuesAllowed(true);
        cmd.getSubcommands().get("launch").setStopAtPositional(true).setUnmatchedOptionsArePositionalParams(true);
        giveEveryCommandTheVersion(cmd);
        cmd.getSubcommands().get("help").getCommandSpec().usageMessage().footer("", "Examples:",
            "  spillway help run", "  spillway help bench kernels");
        cmd.setParameterExceptionHandler((e, args) ->
        {
            final CommandLine bad = e.getCommandLine();
            final PrintWriter err = bad.getErr();
            err.println("spillway: " + e.getMessage());
            err.println("Try '" + bad.getCommandSpec().qualifiedName() + " --help' for the options and examples.");
            err.flush();
            return bad.getCommandSpec().exitCodeOnInvalidInput();
        });
        cmd.setExecutionExceptionHandler((e, failed, parsed) ->
        {
            if (Interrupts.requested())
            {
                return 1;
            }
            final PrintWriter err = failed.getErr();
            if (cli.verbose || "1".equals(System.getenv("SPILLWAY_DEBUG")))
            {
                e.printStackTrace(err);
            }
            err.println("spillway: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            err.flush();
            return 1;
        });
        return cmd;
    }

    /** {@code -V} on a subcommand prints what it prints on {@code spillway} (subcommands have no provider of their own). */
    private static void giveEveryCommandTheVersion(final CommandLine cmd)
    {
        for (final CommandLine sub : cmd.getSubcommands().values())
        {
            if (sub.getCommandSpec().versionProvider() == null)
            {
                sub.getCommandSpec().versionProvider(new Version());
            }
            giveEveryCommandTheVersion(sub);
        }
    }

    /** Reports the version Maven wrote into {@code version.properties}. */
    static final class Version implements IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            return new String[] {"spillway " + number(), "JVM ${java.version} (${java.vm.name} ${java.vm.version})"};
        }

        /** @return the version number, such as {@code 0.1.0-SNAPSHOT}, or {@code (unknown version)}. */
        static String number()
        {
            final Properties p = new Properties();
            try (InputStream in = SpillwayCli.class.getResourceAsStream("version.properties"))
            {
                if (in != null)
                {
                    p.load(in);
                }
            }
            catch (final IOException e)
            {
                // reported as unknown
            }
            return p.getProperty("version", "(unknown version)");
        }
    }
}
