package dev.spillway.resilience.store;

import dev.spillway.checkpoint.CheckpointStore;
import dev.spillway.checkpoint.Cut;
import dev.spillway.checkpoint.GenerationWriter;
import dev.spillway.checkpoint.RestorePoint;
import dev.spillway.io.DirectIo;
import dev.spillway.io.DurableFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;

import static java.lang.System.Logger.Level.WARNING;

/**
 * A {@link CheckpointStore} in one directory:
 * <ul>
 *   <li>{@code blocks-N.dat}: the blocks saved by generation N, each at a 4 KiB aligned offset, written with direct
 *       IO where the file system allows it;</li>
 *   <li>{@code gen-N.manifest}: the generation's cut and, for every tag, which blocks file holds its block, where,
 *       and its 64-bit checksum; self-checksummed. A generation inherits every entry of the newest committed one,
 *       so unchanged blocks are referenced in older blocks files, not copied;</li>
 *   <li>{@code starts}: how many times the run restarted (its incarnation) and when it first started, recorded
 *       once a run has finished a task, whether or not it commits a checkpoint ({@link RunStarts});</li>
 *   <li>{@code progress}, {@code complete}, and {@code restore-attempts} while a restore runs.</li>
 * </ul>
 * A commit forces the blocks, writes and forces {@code gen-N.manifest.tmp}, renames it atomically and syncs the
 * directory; only then are older generations collected. Two committed generations are kept, or as many as
 * {@link Builder#keep} says: the new one and those before it (the first one the newest verified when the run
 * restored), together with exactly the blocks files they refer to. Everything else (older or rejected manifests,
 * blocks of abandoned or crashed generations, temporaries) is deleted, so storage is orphan-free after every commit.
 *
 * <p>A finished run ({@link #markComplete()}) is discarded by the next {@link #restore}: every generation's files
 * are deleted, then the marker, and the new run starts at incarnation 0 (generation numbers still continue).
 *
 * <p>{@link #restore} is called once, before the first {@link #begin}; the rest from one thread (the IO thread).
 */
public final class FileCheckpointStore implements CheckpointStore
{
    private static final System.Logger LOG = System.getLogger(FileCheckpointStore.class.getName());

    private final Path dir;
    private final boolean verifyChecksums;
    private final boolean directIo;
    private final ProgressFile progress;
    private final long globalCut;
    private volatile long nextGeneration;
    private volatile long incarnation;
    private long originMillis;
    private boolean restored;
    /** Whether this run's start is in the {@code starts} file (IO thread). */
    private boolean startRecorded;
    private final int keep;
    /** The committed generations kept, newest first (the base of the next): at most {@link #keep}. */
    private final ArrayDeque<Manifest> kept = new ArrayDeque<>();
    private FileGenerationWriter inFlight;
    private boolean closed;

    private FileCheckpointStore(final Path dir, final boolean verifyChecksums, final long globalCut, final int keep)
        throws IOException
    {
        this.globalCut = globalCut;
        this.keep = keep;
        Files.createDirectories(dir);
        this.dir = dir;
        this.verifyChecksums = verifyChecksums;
        this.directIo = DirectIo.supported(dir, "writing checkpoint blocks through the page cache");
        this.progress = new ProgressFile(dir.resolve(Generations.PROGRESS));
        this.nextGeneration = Generations.scan(dir).highest() + 1;
        final RunStarts start = RunStarts.next(dir, Files.exists(dir.resolve(Generations.COMPLETE)),
            System.currentTimeMillis());
        this.incarnation = start.incarnation();
        this.originMillis = start.originMillis();
    }

    /** Opens (creating if absent) the checkpoint directory {@code dir}, checksums verified. */
    public static FileCheckpointStore open(final Path dir) throws IOException
    {
        return builder(dir).open();
    }

    /**
     * @return whether {@code dir} holds a committed generation of a run that has not finished: a run opened there
     *         resumes from it (if one verifies).
     */
    public static boolean holdsUnfinishedRun(final Path dir) throws IOException
    {
        return Files.isDirectory(dir) && !Files.exists(dir.resolve(Generations.COMPLETE)) &&
            !Generations.scan(dir).manifests().isEmpty();
    }

    /** @return a builder for a store in {@code dir}. */
    public static Builder builder(final Path dir)
    {
        return new Builder(dir);
    }

    /** @return the checkpoint directory. */
    public Path directory()
    {
        return dir;
    }

    /** @return whether blocks files are written with {@code O_DIRECT}. */
    public boolean directIo()
    {
        return directIo;
    }

    /**
     * @return wall-clock milliseconds when this directory's run first started (incarnation 0), carried across
     *         restarts in the {@code starts} file; this process's open time on a fresh directory.
     */
    public long originMillis()
    {
        return originMillis;
    }

    @Override
    public RestorePoint restore(final Consumer<String> log) throws IOException
    {
        checkNotClosed();
        if (restored)
        {
            throw new IllegalStateException("restore was already called on the checkpoint store in " + dir);
        }
        restored = true;
        final Generations.Scan scan = Generations.scan(dir);
        nextGeneration = Math.max(nextGeneration, scan.highest() + 1);
        if (Files.exists(dir.resolve(Generations.COMPLETE)))
        {
            if (globalCut >= 0)
            {
                throw new IOException("the run in " + dir + " had completed, but the job restarts from its global " +
                    "checkpoint at global index " + globalCut + ": this rank's checkpoints are gone");
            }
            log.accept("checkpoint: the run in " + dir + " had completed; starting afresh");
            Generations.deleteAll(dir, this::warn);
            Files.deleteIfExists(dir.resolve(Generations.PROGRESS));
            Files.deleteIfExists(dir.resolve(Generations.ATTEMPTS));
            Files.deleteIfExists(dir.resolve(Generations.STARTS));
            Files.delete(dir.resolve(Generations.COMPLETE));
            DurableFiles.syncDirectory(dir);
            return null;
        }
        final Recovery recovery = new Recovery(dir, verifyChecksums, log, globalCut);
        final Manifest found = recovery.run(scan.manifests());
        if (found == null)
        {
            return null;
        }
        kept.addFirst(found);
        incarnation = Math.max(incarnation, found.cut().incarnation() + 1);
        originMillis = Math.min(originMillis, found.originMillis());
        return new FileRestorePoint(found, new BlockReader(dir, verifyChecksums),
            recovery.explain(found, progress.previous()), recovery.readSeconds(), recovery.verifySeconds(),
            progress.previous());
    }

    @Override
    public GenerationWriter begin(final Cut cut) throws IOException
    {
        checkNotClosed();
        if (!restored)
        {
            throw new IllegalStateException("restore must be called before the first checkpoint in " + dir +
                ", so the generations already there are known");
        }
        if (inFlight != null)
        {
            throw new IllegalStateException("checkpoint generation " + inFlight.cut().generation() + " in " + dir +
                " is still in flight; generation " + cut.generation() + " cannot begin");
        }
        if (cut.generation() < nextGeneration)
        {
            throw new IllegalArgumentException("checkpoint generation " + cut.generation() + " in " + dir +
                " is taken; the next free one is " + nextGeneration);
        }
        nextGeneration = cut.generation() + 1;
        recordStart();
        inFlight = new FileGenerationWriter(this, dir, cut, originMillis, directIo,
            kept.isEmpty() ? Collections.emptySortedMap() : kept.peekFirst().entries());
        return inFlight;
    }

    /**
     * {@inheritDoc} Each block is appended to the generation's blocks file and its manifest rewritten in one step;
     * the old blocks stay in the file, unreferenced.
     */
    @Override
    public void mend(final Cut cut, final Map<String, ByteBuffer> blocks) throws IOException
    {
        checkNotClosed();
        final Manifest newest = kept.peekFirst();
        final long generation = cut.generation();
        if (inFlight != null || newest == null || newest.generation() != generation)
        {
            throw new IllegalStateException("checkpoint generation " + generation + " in " + dir + " cannot be " +
                "mended: it is not the newest committed one or another is in flight");
        }
        final SortedMap<String, ManifestEntry> entries = new TreeMap<>(newest.entries());
        final BlockChecksum checksum = new BlockChecksum();
        try (BlockFile file = BlockFile.extend(Generations.blocks(dir, generation), generation))
        {
            for (final Map.Entry<String, ByteBuffer> block : blocks.entrySet())
            {
                final String tag = block.getKey();
                final ByteBuffer src = block.getValue();
                final ManifestEntry old = entries.get(tag);
                if (old == null || old.length() != src.remaining())
                {
                    throw new IllegalArgumentException("checkpoint generation " + generation + " in " + dir +
                        (old == null ? " holds no block '" + tag + "'" : " holds '" + tag + "' in " + old.length() +
                        " bytes, not " + src.remaining()) + ", so it cannot be mended");
                }
                final long sum = checksum.of(src);
                entries.put(tag, new ManifestEntry(tag, old.length(), old.version(), generation, file.append(tag, src),
                    sum));
            }
            file.force();
        }
        final Manifest mended = new Manifest(newest.cut(), newest.createdMillis(), newest.originMillis(), entries);
        Generations.writeManifest(dir, mended);
        kept.removeFirst();
        kept.addFirst(mended);
        DurableFiles.syncDirectory(dir);
    }

    @Override
    public long nextGeneration()
    {
        return nextGeneration;
    }

    @Override
    public long incarnation()
    {
        return incarnation;
    }

    /** Records the count, and this run's start once it has finished a task (so its restart will count). */
    @Override
    public void progress(final long completedTasks)
    {
        if (completedTasks > 0)
        {
            recordStart();
        }
        progress.write(completedTasks);
    }

    @Override
    public void markComplete() throws IOException
    {
        checkNotClosed();
        try (FileChannel channel = FileChannel.open(dir.resolve(Generations.COMPLETE), StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE))
        {
            final ByteBuffer text = ByteBuffer.wrap(("completed after generation " + (nextGeneration - 1) + "\n")
                .getBytes(StandardCharsets.US_ASCII));
            while (text.hasRemaining())
            {
                channel.write(text);
            }
            channel.force(true);
        }
        DurableFiles.syncDirectory(dir);
    }

    /** Abandons a generation still in flight, then closes the progress file. */
    @Override
    public void close() throws IOException
    {
        if (closed)
        {
            return;
        }
        if (inFlight != null)
        {
            inFlight.abandon();
        }
        closed = true;
        progress.close();
    }

    @Override
    public String toString()
    {
        return "checkpoint store " + dir + (verifyChecksums ? "" : " (checksums NOT verified)");
    }

    /**
     * A generation committed: it becomes the base of the next, and everything but it and the generations before it
     * that are kept is deleted.
     */
    void committed(final Manifest manifest)
    {
        kept.addFirst(manifest);
        while (kept.size() > keep)
        {
            kept.removeLast();
        }
        inFlight = null;
        final Set<Long> generations = new HashSet<>();
        final Set<Long> referenced = new HashSet<>();
        for (final Manifest m : kept)
        {
            generations.add(m.generation());
            m.entries().values().forEach(entry -> referenced.add(entry.fileGeneration()));
        }
        try
        {
            Generations.collect(dir, generations, referenced, this::warn);
        }
        catch (final IOException e)
        {
            warn("generation " + manifest.generation() + " committed, but older files could not be collected: " + e);
        }
    }

    void finished(final FileGenerationWriter writer)
    {
        if (inFlight == writer)
        {
            inFlight = null;
        }
    }

    private void recordStart()
    {
        if (startRecorded)
        {
            return;
        }
        startRecorded = true;
        try
        {
            new RunStarts(incarnation, originMillis).write(dir);
        }
        catch (final IOException e)
        {
            warn("cannot record this run's start, so a restart will not count it as a failure: " + e);
        }
    }

    void warn(final String message)
    {
        LOG.log(WARNING, "spillway: checkpoint store " + dir + ": " + message);
    }

    private void checkNotClosed()
    {
        if (closed)
        {
            throw new IllegalStateException("the checkpoint store in " + dir + " is closed");
        }
    }

    /** Builds a {@link FileCheckpointStore}. */
    public static final class Builder
    {
        private final Path dir;
        private boolean verifyChecksums = true;
        private long globalCut = Recovery.NEWEST;
        private int keep = 2;

        private Builder(final Path dir)
        {
            this.dir = dir;
        }

        /**
         * Whether restore and {@link RestorePoint#read} verify checksums. Default true. <b>Test only:</b> false is
         * the negative control that shows the fault tests can fail; it lets corrupted blocks through.
         */
        public Builder verifyChecksums(final boolean verify)
        {
            this.verifyChecksums = verify;
            return this;
        }

        /**
         * For one rank of a distributed job: {@link #restore} resumes from the generation of the job's global
         * checkpoint, the cut at global index {@code index} ({@link Cut#globalIndex}), and from no other; it fails
         * naming what it rejected when that generation is missing or does not verify. {@link Cut#LOCAL} means the
         * job has no global checkpoint yet: the run starts afresh and generations found are collected later.
         * Default: the newest generation that verifies.
         */
        public Builder globalCut(final long index)
        {
            if (index < Cut.LOCAL)
            {
                throw new IllegalArgumentException("global cut index " + index + " is negative");
            }
            this.globalCut = index;
            return this;
        }

        /**
         * How many committed generations each commit keeps: the new one and those before it. Default 2. A rank
         * whose generations are copied to its buddy keeps 3, so that it may begin a cut while the copy of the one
         * before is in flight and still keep the job's newest global checkpoint.
         */
        public Builder keep(final int generations)
        {
            if (generations < 2)
            {
                throw new IllegalArgumentException("a store keeps at least 2 generations, not " + generations);
            }
            this.keep = generations;
            return this;
        }

        /** @return the store, its directory created if absent. */
        public FileCheckpointStore open() throws IOException
        {
            return new FileCheckpointStore(dir, verifyChecksums, globalCut, keep);
        }
    }
}
