package dev.spillway.kernels.graph;

import dev.spillway.Data;
import dev.spillway.Privilege;
import dev.spillway.ranks.TransferSchedule;

import java.util.ArrayList;
import java.util.List;

/**
 * A graph that runs nothing: it places a kernel's tiles on {@code ranks} ranks as a multi-rank {@link EngineGraph}
 * does and records every transfer the kernel's tasks would make in a {@link TransferSchedule}, for the
 * past-to-future analysis at more ranks than the machine has. Task bodies are never called.
 */
public final class ScheduleGraph implements TileGraph
{
    private final TransferSchedule schedule;

    /** @param ranks how many ranks to place the tiles on. */
    public ScheduleGraph(final int ranks)
    {
        this.schedule = new TransferSchedule(ranks);
    }

    /** @return what was recorded. */
    public TransferSchedule schedule()
    {
        return schedule;
    }

    @Override
    public String name()
    {
        return "schedule";
    }

    @Override
    public Tile tile(final String tag, final int bytes)
    {
        return tile(tag, bytes, Home.ROOT);
    }

    @Override
    public Tile pinnedTile(final String tag, final int bytes)
    {
        return tile(tag, bytes, Home.ROOT);
    }

    @Override
    public Tile tile(final String tag, final int bytes, final Home home)
    {
        return new ScheduledTile(schedule.declare(tag, bytes, home.rank(schedule.ranks())));
    }

    @Override
    public Tile pinnedTile(final String tag, final int bytes, final Home home)
    {
        return tile(tag, bytes, home);
    }

    @Override
    public TileTaskBuilder task(final String name)
    {
        return new Builder(name);
    }

    @Override
    public void awaitAll()
    {
    }

    @Override
    public GraphProgress progress()
    {
        return new GraphProgress(schedule.submissions(), schedule.submissions(), 0, 0);
    }

    @Override
    public void close()
    {
    }

    private record ScheduledTile(Data data) implements Tile
    {
        @Override
        public String tag()
        {
            return data.tag();
        }

        @Override
        public int size()
        {
            return data.size();
        }
    }

    private final class Builder implements TileTaskBuilder
    {
        private final String name;
        private final List<Data> data = new ArrayList<>();
        private final List<Privilege> privileges = new ArrayList<>();

        Builder(final String name)
        {
            this.name = name;
        }

        private TileTaskBuilder access(final Privilege privilege, final Tile... tiles)
        {
            for (final Tile tile : tiles)
            {
                data.add(((ScheduledTile) tile).data());
                privileges.add(privilege);
            }
            return this;
        }

        @Override
        public TileTaskBuilder read(final Tile... tiles)
        {
            return access(Privilege.READ, tiles);
        }

        @Override
        public TileTaskBuilder write(final Tile... tiles)
        {
            return access(Privilege.WRITE, tiles);
        }

        @Override
        public TileTaskBuilder readWrite(final Tile... tiles)
        {
            return access(Privilege.READ_WRITE, tiles);
        }

        @Override
        public TileTaskBuilder scratch(final Tile... tiles)
        {
            return access(Privilege.SCRATCH, tiles);
        }

        @Override
        public TileTaskBuilder priority(final int priority)
        {
            return this;
        }

        @Override
        public void submit(final TileBody body)
        {
            schedule.submit(name, data.toArray(new Data[0]), privileges.toArray(new Privilege[0]));
        }
    }
}
