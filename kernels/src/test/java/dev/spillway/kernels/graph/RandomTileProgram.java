package dev.spillway.kernels.graph;

import dev.spillway.Privilege;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded random task list over a few dozen small tiles with all four privileges. Every task hashes what it reads
 * and mixes the hash and its number into what it writes with exact long arithmetic, so any reordering that
 * breaks a dependency changes the final bytes. {@link #replay()} runs the list sequentially on heap arrays.
 */
final class RandomTileProgram
{
    static final int TILES = 40;
    static final int PINNED = 3;
    static final int MAX_TILE = 8 << 10;
    /** Pinned tiles are ghost layers: written and read, never scratch. */
    private static final Privilege[] PINNED_PRIVILEGES = {Privilege.READ, Privilege.READ_WRITE, Privilege.WRITE};

    /** One task: tile indices and a privilege for each. */
    record Step(int[] tiles, Privilege[] privileges)
    {
    }

    final int[] sizes = new int[TILES];
    final List<Step> steps = new ArrayList<>();
    /** Tiles whose final contents are defined: last touched by WRITE or READ_WRITE, not SCRATCH. */
    final boolean[] defined = new boolean[TILES];

    RandomTileProgram(final long seed, final int tasks)
    {
        final SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < TILES; i++)
        {
            sizes[i] = 8 * (128 + rnd.nextInt(MAX_TILE / 8 - 127));
        }
        for (int i = 0; i < TILES; i++)
        {
            if (pinned(i) || rnd.nextInt(4) != 0)
            {
                add(new int[] {i}, new Privilege[] {Privilege.WRITE});
            }
        }
        while (steps.size() < tasks)
        {
            final int n = 1 + rnd.nextInt(6);
            final int[] chosen = rnd.ints(0, TILES).distinct().limit(n).toArray();
            final Privilege[] p = new Privilege[n];
            for (int k = 0; k < n; k++)
            {
                final Privilege[] allowed = pinned(chosen[k]) ? PINNED_PRIVILEGES : defined[chosen[k]] ?
                    Privilege.values() : new Privilege[] {Privilege.WRITE, Privilege.SCRATCH};
                p[k] = allowed[rnd.nextInt(allowed.length)];
            }
            add(chosen, p);
        }
    }

    static boolean pinned(final int tile)
    {
        return tile < PINNED;
    }

    static String tag(final int tile)
    {
        return (pinned(tile) ? "ghost" : "t") + tile;
    }

    /** @return the final contents of each tile when the steps run one after another; null where undefined. */
    byte[][] replay()
    {
        final byte[][] tiles = new byte[TILES][];
        for (int i = 0; i < TILES; i++)
        {
            tiles[i] = new byte[sizes[i]];
        }
        for (int s = 0; s < steps.size(); s++)
        {
            final Step step = steps.get(s);
            final ByteBuffer[] views = new ByteBuffer[step.tiles.length];
            for (int k = 0; k < views.length; k++)
            {
                final ByteBuffer heap = step.privileges[k] == Privilege.SCRATCH ?
                    ByteBuffer.allocate(sizes[step.tiles[k]]) : ByteBuffer.wrap(tiles[step.tiles[k]]);
                views[k] = (step.privileges[k] == Privilege.READ ? heap.asReadOnlyBuffer() : heap)
                    .order(ByteOrder.nativeOrder());
            }
            run(s, step, views);
        }
        for (int i = 0; i < TILES; i++)
        {
            if (!defined[i])
            {
                tiles[i] = null;
            }
        }
        return tiles;
    }

    /** The body of step {@code s}: hash the readable tiles, use the scratch tiles, then produce the outputs. */
    static void run(final int s, final Step step, final ByteBuffer[] views)
    {
        long h = mix(0x243F6A8885A308D3L ^ s);
        for (int k = 0; k < views.length; k++)
        {
            if (step.privileges[k].readsContents())
            {
                final ByteBuffer v = views[k];
                for (int i = 0; i < v.limit(); i += 8)
                {
                    h = (h ^ v.getLong(i)) * 0x100000001B3L;
                }
            }
        }
        for (int k = 0; k < views.length; k++)
        {
            if (step.privileges[k] == Privilege.SCRATCH)
            {
                final ByteBuffer v = views[k];
                for (int i = 0; i < v.limit(); i += 8)
                {
                    v.putLong(i, mix(h + i));
                }
                for (int i = 0; i < v.limit(); i += 8)
                {
                    h += v.getLong(i);
                }
            }
        }
        for (int k = 0; k < views.length; k++)
        {
            final ByteBuffer v = views[k];
            if (step.privileges[k] == Privilege.WRITE)
            {
                for (int i = 0; i < v.limit(); i += 8)
                {
                    v.putLong(i, mix(h + 31L * k + i));
                }
            }
            else if (step.privileges[k] == Privilege.READ_WRITE)
            {
                for (int i = 0; i < v.limit(); i += 8)
                {
                    v.putLong(i, v.getLong(i) * 0x9E3779B97F4A7C15L + mix(h ^ k));
                }
            }
        }
    }

    private void add(final int[] tiles, final Privilege[] privileges)
    {
        for (int k = 0; k < tiles.length; k++)
        {
            if (privileges[k] != Privilege.READ)
            {
                defined[tiles[k]] = privileges[k] != Privilege.SCRATCH;
            }
        }
        steps.add(new Step(tiles, privileges));
    }

    private static long mix(final long x)
    {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
