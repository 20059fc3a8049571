package dev.spillway.cli;

import java.io.PrintStream;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What the libraries log ({@link System.Logger}, backed by java.util.logging) reaches the terminal as one line each,
 * {@code spillway: <message>}, on standard error: INFO and above, everything with {@code SPILLWAY_DEBUG=1}.
 */
final class TerminalLog
{
    private static final String PREFIX = "spillway: ";

    private TerminalLog()
    {
    }

    /**
     * Replaces java.util.logging's default two-line console output for this process. Lines go to whatever
     * {@link System#err} is when they are logged, so silencing it (after an interrupt) silences them too.
     */
    static void install()
    {
        LogManager.getLogManager().reset();
        final Level level = "1".equals(System.getenv("SPILLWAY_DEBUG")) ? Level.ALL : Level.INFO;
        final Logger root = Logger.getLogger("");
        root.setLevel(level);
        final Handler handler = new Handler()
        {
            @Override
            public void publish(final LogRecord record)
            {
                if (isLoggable(record))
                {
                    final PrintStream err = System.err;
                    err.print(getFormatter().format(record));
                    err.flush();
                }
            }

            @Override
            public void flush()
            {
                System.err.flush();
            }

            @Override
            public void close()
            {
                System.err.flush();
            }
        };
        handler.setLevel(level);
        handler.setFormatter(new Formatter()
        {
            @Override
            public String format(final LogRecord record)
            {
                final String message = formatMessage(record);
                final StringBuilder line = new StringBuilder(message.startsWith("spillway") ? "" : PREFIX)
                    .append(message).append(System.lineSeparator());
                if (record.getThrown() != null && level == Level.ALL)
                {
                    final java.io.StringWriter trace = new java.io.StringWriter();
                    record.getThrown().printStackTrace(new java.io.PrintWriter(trace));
                    line.append(trace);
                }
                return line.toString();
            }
        });
        root.addHandler(handler);
    }
}
