package dev.spillway.examples;

import java.nio.file.Path;
import java.util.Locale;

/** The command line of {@link GramMatrix}: positional, each optional from the right. */
record GramArguments(long rows, int columns, int rowsPerTile, long dramBudget, Path spillDir)
{
    static final String USAGE = String.join(System.lineSeparator(),
        "usage: GramMatrix [ROWS [COLUMNS [ROWS_PER_TILE [DRAM_BUDGET [SPILL_DIR]]]]]",
        "",
        "Computes XᵀX of a generated ROWS x COLUMNS table of doubles out of core with Spillway (2 workers), then",
        "checks it against a direct streaming computation.",
        "",
        "  ROWS           rows of the table (default 524288: 256 MiB with the default columns)",
        "  COLUMNS        values per row (default 64)",
        "  ROWS_PER_TILE  rows per tile, the unit of spilling (default 8192: 4 MiB tiles)",
        "  DRAM_BUDGET    off-heap DRAM cap in bytes, suffix k, m or g for KiB, MiB, GiB (default 32m)",
        "  SPILL_DIR      directory for spill files (default $java.io.tmpdir/spillway-examples)",
        "  --help         prints this text",
        "");

    /** Tiles and their partials take two store blocks each; the direct store's default sizing holds 2^18. */
    static final int MAX_TILES = 1 << 16;

    static GramArguments defaults()
    {
        return new GramArguments(524_288, 64, 8192, 32L << 20,
            Path.of(System.getProperty("java.io.tmpdir"), "spillway-examples"));
    }

    /** @throws IllegalArgumentException naming the argument that is wrong and why. */
    static GramArguments parse(final String[] args)
    {
        if (args.length > 5)
        {
            throw new IllegalArgumentException("expected at most 5 arguments, got " + args.length + " (see --help)");
        }
        final GramArguments d = defaults();
        final long rows = args.length > 0 ? positive("ROWS", args[0], Long.MAX_VALUE) : d.rows();
        final int columns = args.length > 1 ? (int)positive("COLUMNS", args[1], 16_383) : d.columns();
        final int rowsPerTile = args.length > 2 ? (int)positive("ROWS_PER_TILE", args[2], Integer.MAX_VALUE) :
            d.rowsPerTile();
        final long budget = args.length > 3 ? bytes("DRAM_BUDGET", args[3]) : d.dramBudget();
        final Path dir = args.length > 4 ? Path.of(args[4]) : d.spillDir();
        final GramArguments parsed = new GramArguments(rows, columns, rowsPerTile, budget, dir);

        if (parsed.tileBytes() > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("ROWS_PER_TILE " + rowsPerTile + " x COLUMNS " + columns +
                " makes a tile of " + parsed.tileBytes() + " B; a data object holds at most 2^31-1 bytes");
        }
        if (parsed.tiles() > MAX_TILES)
        {
            throw new IllegalArgumentException("ROWS " + rows + " / ROWS_PER_TILE " + rowsPerTile + " makes " +
                parsed.tiles() + " tiles; the store holds " + MAX_TILES + " with their partials: raise ROWS_PER_TILE");
        }
        final long workingSet = parsed.tileBytes() + ((long)columns * columns + columns) * Double.BYTES;
        if (budget < workingSet)
        {
            throw new IllegalArgumentException("DRAM_BUDGET " + budget + " B cannot hold one tile and one partial (" +
                workingSet + " B): raise it or lower ROWS_PER_TILE");
        }
        return parsed;
    }

    long tiles()
    {
        return (rows - 1) / rowsPerTile + 1;
    }

    long tileBytes()
    {
        return (long)rowsPerTile * columns * Double.BYTES;
    }

    /** @return the table's bytes; valid once {@link #parse} accepted the arguments. */
    long tableBytes()
    {
        return rows * columns * Double.BYTES;
    }

    private static long positive(final String name, final String text, final long max)
    {
        return number(name, text, text, max, "a positive integer");
    }

    private static long bytes(final String name, final String text)
    {
        final String lower = text.toLowerCase(Locale.ROOT);
        final int shift = lower.endsWith("k") ? 10 : lower.endsWith("m") ? 20 : lower.endsWith("g") ? 30 : 0;
        final String digits = shift == 0 ? text : text.substring(0, text.length() - 1);
        return number(name, text, digits, Long.MAX_VALUE >> shift, "a positive size such as 32m") << shift;
    }

    private static long number(final String name, final String text, final String digits, final long max,
        final String expected)
    {
        final long value;
        try
        {
            value = Long.parseLong(digits);
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException(name + ": expected " + expected + ", got '" + text + "' (see --help)",
                e);
        }
        if (value <= 0 || value > max)
        {
            final String bound = value <= 0 ? "" : " of at most " + max;
            throw new IllegalArgumentException(name + ": expected " + expected + bound + ", got '" + text +
                "' (see --help)");
        }
        return value;
    }

}
