package dev.spillway.cli;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The refusals of {@code run} before it starts anything (exit 2), each naming the option at fault and, where one
 * exists, a value that would do.
 */
final class RunChecks
{
    /**
     * At most this many workers per available processor. Idle workers wake every millisecond to look for work
     * ({@code idleMaxParkNanos}), so hundreds of them on a few cores starve the busy ones and the IO thread: with 1000
     * workers on 2 processors LU still progressed, but a millisecond task took 40 s.
     */
    static final int WORKERS_PER_PROCESSOR = 8;

    private final CommandLine commandLine;

    /** @param commandLine the {@code run} command line, which a refusal names. */
    RunChecks(final CommandLine commandLine)
    {
        this.commandLine = commandLine;
    }

    /** Refuses the arguments with {@code problem}, a message naming the option at fault, unless it is null. */
    void require(final String problem)
    {
        if (problem != null)
        {
            throw new ParameterException(commandLine, problem);
        }
    }

    /** Refuses a {@code --baseline} other than none, incore or mmap. */
    void baseline(final String baseline)
    {
        if (!baseline.matches("none|incore|mmap"))
        {
            throw new ParameterException(commandLine, "--baseline must be none, incore " +
                "or mmap; got '" + baseline + "'");
        }
    }

    /** @return {@code --workers}, or the processors when null; refused outside 1 to 8 per processor. */
    int workers(final Integer workers)
    {
        final int processors = Runtime.getRuntime().availableProcessors();
        if (workers == null)
        {
            return processors;
        }
        if (workers < 1)
        {
            throw new ParameterException(commandLine, "--workers must be at least 1, got " + workers);
        }
        final int limit = WORKERS_PER_PROCESSOR * processors;
        if (workers > limit)
        {
            throw new ParameterException(commandLine, "--workers " + workers + " is more than " +
                WORKERS_PER_PROCESSOR + " per available processor (" + processors + " here): idle workers wake " +
                "every millisecond to look for work, so that many starve the busy ones and the IO thread, and the run " +
                "crawls; use --workers " + limit + " or fewer (default: " + processors + ")");
        }
        return workers;
    }

    /** Refuses a {@code --checkpoint-dir} that cannot be created or written, naming it and why; null passes. */
    void checkpointDir(final Path checkpointDir)
    {
        final String why = checkpointDir == null ? null : Dirs.whyUnwritable(checkpointDir);
        if (why != null)
        {
            throw new ParameterException(commandLine, "--checkpoint-dir " + checkpointDir + " cannot hold " +
                "checkpoints: " + why + "; choose a directory this user can create and write");
        }
    }

    /**
     * Refuses an output file ({@code --json}, {@code --report}) that could not be written when the run ends, so a
     * long run is not lost to a typo; null passes.
     */
    void outputFile(final String option, final Path file)
    {
        if (file == null)
        {
            return;
        }
        final Path parent = file.toAbsolutePath().getParent();
        final String why = Files.isDirectory(file) ? "it is a directory" :
            parent == null || !Files.isDirectory(parent) ? "directory " + parent + " does not exist" :
            Files.exists(file) && !Files.isWritable(file) ? "it is not writable" :
            !Files.isWritable(parent) ? "directory " + parent + " is not writable" : null;
        if (why != null)
        {
            throw new ParameterException(commandLine, option + " " + file + " cannot be written: " + why +
                "; nothing was run");
        }
    }

    /** @return {@code --dir}, created if needed and proven writable; refused naming the reason if not. */
    SpillArea spillArea(final Path dir)
    {
        try
        {
            return SpillArea.prepare(dir);
        }
        catch (final IOException e)
        {
            throw new ParameterException(commandLine, e.getMessage());
        }
    }

    /**
     * Refuses what one rank of a distributed run cannot do yet, before it joins the job.
     *
     * @param refused the first such option given, or null if none.
     */
    void onRanks(final String refused)
    {
        if (refused != null)
        {
            throw new ParameterException(commandLine, refused + " is not supported on " +
                "several ranks (SPILLWAY_RANK is set); run it on one rank");
        }
    }
}
