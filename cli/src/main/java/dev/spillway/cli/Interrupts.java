package dev.spillway.cli;

import sun.misc.Signal;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * What SIGINT (Ctrl-C) and SIGTERM do to a {@code spillway} process: print one line, {@code spillway: interrupted},
 * run the stop actions that commands registered (cancel the runtime, stop the ranks, remove spill files), newest
 * first, each for at most its own time limit, then exit with 128 + the signal's number: 130 for SIGINT, 143 for
 * SIGTERM. Nothing else is printed once the line is out, so a failure that the cancellation causes on another thread
 * stays silent. A second signal during the sequence is ignored.
 *
 * <p>Signal handlers ({@code sun.misc.Signal}) rather than a shutdown hook: a hook cannot tell the two signals apart,
 * runs beside the other hooks in no set order, and cannot hold the exit status back. Only {@link SpillwayCli#main}
 * installs them; a JVM that embeds the command line (a test) keeps its own. A signal that was ignored when the JVM
 * started (as {@code nohup} does to SIGINT and background jobs of a non-interactive shell) stays ignored.
 */
final class Interrupts
{
    private static final Object LOCK = new Object();
    private static final Deque<Action> ACTIONS = new ArrayDeque<>();
    private static int signal;
    private static boolean exiting;

    private Interrupts()
    {
    }

    /** A stop action; {@link #close} withdraws it once what it stops has ended normally. */
    static final class Action implements AutoCloseable
    {
        private final String what;
        private final long limitMs;
        private final Runnable action;

        private Action(final String what, final long limitMs, final Runnable action)
        {
            this.what = what;
            this.limitMs = limitMs;
            this.action = action;
        }

        @Override
        public void close()
        {
            synchronized (LOCK)
            {
                ACTIONS.remove(this);
            }
        }
    }

    /** Handles SIGINT and SIGTERM in this JVM from now on. */
    static void install()
    {
        for (final String name : List.of("INT", "TERM"))
        {
            Signal.handle(new Signal(name), Interrupts::interrupted);
        }
    }

    /**
     * Registers what to do on an interrupt; actions run newest first, each on its own thread.
     *
     * @param what    names the action in the thread's name.
     * @param limitMs how long the action may take; the next one starts after that, and the process exits after the
     *                last, whatever they still do.
     * @return the registration, to close when it no longer applies.
     */
    static Action onInterrupt(final String what, final long limitMs, final Runnable action)
    {
        final Action a = new Action(what, limitMs, action);
        synchronized (LOCK)
        {
            ACTIONS.push(a);
        }
        return a;
    }

    /** @return whether a signal has started the interrupt sequence. */
    static boolean requested()
    {
        synchronized (LOCK)
        {
            return signal != 0;
        }
    }

    /**
     * Exits with {@code status}, unless an interrupt is under way: then it waits for that to exit with its own
     * status, so the two never race for the exit status.
     */
    static void exit(final int status)
    {
        final boolean interrupting;
        synchronized (LOCK)
        {
            interrupting = signal != 0;
            exiting = !interrupting;
        }
        if (!interrupting)
        {
            System.exit(status);
        }
        while (true)
        {
            try
            {
                Thread.sleep(Long.MAX_VALUE);
            }
            catch (final InterruptedException ignored)
            {
                // the interrupt sequence exits
            }
        }
    }

    private static void interrupted(final Signal s)
    {
        final List<Action> actions;
        synchronized (LOCK)
        {
            if (signal != 0 || exiting)
            {
                return;
            }
            signal = s.getNumber();
            actions = new ArrayList<>(ACTIONS);
        }
        System.err.println("spillway: interrupted");
        System.err.flush();
        final PrintStream silent = new PrintStream(OutputStream.nullOutputStream());
        System.setErr(silent);
        System.setOut(silent);
        for (final Action a : actions)
        {
            final Thread t = new Thread(a.action, "spillway-interrupt " + a.what);
            t.setDaemon(true);
            t.start();
            try
            {
                t.join(a.limitMs);
            }
            catch (final InterruptedException e)
            {
                break;
            }
        }
        System.exit(128 + signal);
    }
}
