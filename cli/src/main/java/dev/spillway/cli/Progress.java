package dev.spillway.cli;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/** A benchmark's progress on stderr: a progress bar on a terminal, otherwise one line per step. */
final class Progress implements AutoCloseable
{
    private final String task;
    private final long total;
    private final ProgressBar bar;
    private final long started = System.nanoTime();
    private long done;
    private long lastLine;

    private Progress(final String task, final long total)
    {
        this.task = task;
        this.total = total;
        bar = System.console() == null ? null : new ProgressBarBuilder().setTaskName(task).setInitialMax(total)
            .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250).continuousUpdate().build();
    }

    /** Starts reporting {@code total} steps of {@code task}, or steps of an unknown total if it is negative. */
    static Progress start(final String task, final long total)
    {
        return new Progress(task, total);
    }

    /** Marks one step done; {@code message} says what it measured. */
    void step(final String message)
    {
        done++;
        if (bar == null)
        {
            System.err.printf("spillway: %s [%d/%d] %s%n", task, done, total, message);
        }
        else
        {
            bar.setExtraMessage(message);
            bar.step();
        }
    }

    /**
     * Moves to {@code done} of the total steps; {@code message} says what moved. Off a terminal it prints a line with
     * an ETA at most every five seconds.
     */
    void set(final long done, final String message)
    {
        this.done = done;
        if (bar != null)
        {
            bar.setExtraMessage(message);
            bar.stepTo(done);
            return;
        }
        final long now = System.nanoTime();
        if (now - lastLine >= 5_000_000_000L && done > 0 && total < 0)
        {
            lastLine = now;
            System.err.printf("spillway: %s %d tasks done, %s%n", task, done, message);
        }
        else if (now - lastLine >= 5_000_000_000L && done > 0 && done < total)
        {
            lastLine = now;
            final double elapsed = (now - started) / 1e9;
            System.err.printf("spillway: %s %d/%d tasks (%.0f%%), %s, ETA %.0f s%n", task, done, total,
                100.0 * done / total, message, elapsed * (total - done) / done);
        }
    }

    @Override
    public void close()
    {
        if (bar != null)
        {
            bar.close();
        }
    }
}
