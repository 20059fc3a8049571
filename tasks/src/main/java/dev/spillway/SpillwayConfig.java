package dev.spillway;

import dev.spillway.checkpoint.CheckpointMode;
import dev.spillway.checkpoint.CheckpointPolicy;
import dev.spillway.checkpoint.CheckpointStore;
import dev.spillway.io.StoreKind;

import java.nio.file.Path;
import java.util.Locale;

/**
 * Every tunable of a runtime, in one place. Each has a default, which a system property named in the setter's
 * javadoc overrides; setters override both. {@link #build()} validates and opens a runtime.
 *
 * <pre>{@code
 * try (Spillway sw = Spillway.builder().workers(2).dramBudget(512L << 20).policy("a,s,d").build()) { ... }
 * }</pre>
 */
public final class SpillwayConfig
{
    private int workers = Integer.getInteger("spillway.workers", Runtime.getRuntime().availableProcessors());
    private long dramBudget = Long.getLong("spillway.dram", 256L << 20);
    private StoreKind storeKind = StoreKind.valueOf(
        System.getProperty("spillway.store", "direct").toUpperCase(Locale.ROOT));
    private Path storeDir = Path.of(System.getProperty("spillway.dir",
        System.getProperty("java.io.tmpdir") + "/spillway"));
    private long diskCap = Long.getLong("spillway.diskCap", Long.MAX_VALUE);
    private int storeMaxBlocks = Integer.getInteger("spillway.storeMaxBlocks", 0);
    private int storeAverageBlock = Integer.getInteger("spillway.storeAverageBlock", 1 << 20);
    private IoOrder ioOrder = IoOrder.FEWEST_IN_NVM;
    private boolean sharedReadyQueue = true;
    private boolean cleanFirst = true;
    private int prefetchDepth = Integer.getInteger("spillway.prefetchDepth", 16);
    private boolean handOvers = Boolean.parseBoolean(System.getProperty("spillway.handOvers", "true"));
    private int admissionWindow = Integer.getInteger("spillway.admissionWindow", 2);
    private double cleanReserve = Double.parseDouble(System.getProperty("spillway.cleanReserve", "0.125"));
    private boolean pinWorkers = Boolean.getBoolean("spillway.pinWorkers");
    private boolean poisonReleasedBuffers = Boolean.getBoolean("spillway.poisonReleasedBuffers");
    private Path traceFile = System.getProperty("spillway.trace") == null ? null :
        Path.of(System.getProperty("spillway.trace"));
    private CloseMode closeMode = CloseMode.DRAIN;
    private int ringSize = Integer.getInteger("spillway.ringSize", 1 << 14);
    private long idleMaxParkNanos = Long.getLong("spillway.idleMaxParkNanos", 1_000_000L);
    private CheckpointStore checkpointStore;
    private CheckpointPolicy checkpointPolicy;
    private CheckpointMode checkpointMode = CheckpointMode.valueOf(
        System.getProperty("spillway.checkpointMode", "semi_blocking").toUpperCase(Locale.ROOT));
    private double checkpointIoShare = Double.parseDouble(System.getProperty("spillway.checkpointIoShare", "0.25"));
    private boolean built;

    SpillwayConfig()
    {
        policy(System.getProperty("spillway.policy", "a,s,d"));
    }

    /** Worker threads that run task bodies. Default: available processors; property {@code spillway.workers}. */
    public SpillwayConfig workers(final int workers)
    {
        checkNotBuilt();
        this.workers = workers;
        return this;
    }

    /**
     * Hard cap on off-heap DRAM for data objects and IO staging, in bytes. Default 256 MiB; property
     * {@code spillway.dram}.
     */
    public SpillwayConfig dramBudget(final long bytes)
    {
        checkNotBuilt();
        this.dramBudget = bytes;
        return this;
    }

    /** The NVMe tier's implementation. Default {@code direct}; property {@code spillway.store}. */
    public SpillwayConfig store(final StoreKind kind)
    {
        checkNotBuilt();
        this.storeKind = kind;
        return this;
    }

    /**
     * Directory for spill files; each runtime uses its own subdirectory and removes it on close. Default
     * {@code $java.io.tmpdir/spillway}; property {@code spillway.dir}.
     */
    public SpillwayConfig storeDir(final Path dir)
    {
        checkNotBuilt();
        this.storeDir = dir;
        return this;
    }

    /** Cap on disk bytes the store may occupy. Default unlimited (the disk's size); property {@code spillway.diskCap}. */
    public SpillwayConfig diskCap(final long bytes)
    {
        checkNotBuilt();
        this.diskCap = bytes;
        return this;
    }

    /**
     * Store sizing: the most blocks (spilled objects) the store holds at once, and their average size. The direct
     * store's index takes about 85 B per block; the Chronicle store preallocates {@code maxBlocks * averageBlock}
     * bytes of map file. Defaults: 262144 blocks for {@code direct}, 4096 for {@code chronicle}, and 1 MiB; properties
     * {@code spillway.storeMaxBlocks}, {@code spillway.storeAverageBlock}.
     */
    public SpillwayConfig storeSizing(final int maxBlocks, final int averageBlockBytes)
    {
        checkNotBuilt();
        this.storeMaxBlocks = maxBlocks;
        this.storeAverageBlock = averageBlockBytes;
        return this;
    }

    /**
     * Sets the policies of seed 003's Table 6.1 from letters separated by commas: one of {@code f}, {@code a},
     * {@code p} for the IO order, {@code s} for the shared ready queue, {@code d} for clean-first eviction.
     * Under {@code a} and {@code p}, a waiting task whose objects are all in DRAM is admitted before anything is
     * evicted for the next task (data reuse); {@code f} keeps strict arrival order. Letters left out turn {@code s}
     * and {@code d} off. Default {@code a,s,d}; property {@code spillway.policy}.
     *
     * @throws IllegalArgumentException naming an unknown letter, or two IO orders.
     */
    public SpillwayConfig policy(final String letters)
    {
        checkNotBuilt();
        IoOrder order = IoOrder.FIFO;
        String orderLetter = null;
        boolean s = false;
        boolean d = false;
        for (final String part : letters.split(","))
        {
            final String letter = part.trim();
            if (letter.equals("f") || letter.equals("a") || letter.equals("p"))
            {
                if (orderLetter != null)
                {
                    throw new IllegalArgumentException("policy '" + letters + "' names two IO orders, '" + orderLetter
                        + "' and '" + letter + "': use one of f, a or p");
                }
                orderLetter = letter;
            }
            switch (letter)
            {
                case "f" -> order = IoOrder.FIFO;
                case "a" -> order = IoOrder.FEWEST_IN_NVM;
                case "p" -> order = IoOrder.PRIORITY;
                case "s" -> s = true;
                case "d" -> d = true;
                default -> throw new IllegalArgumentException("unknown policy letter '" + letter + "' in '" +
                    letters + "': use f, a or p, optionally with s and d, e.g. p,s,d");
            }
        }
        this.ioOrder = order;
        this.sharedReadyQueue = s;
        this.cleanFirst = d;
        return this;
    }

    /** The IO admission order ({@code f}, {@code a} or {@code p}). */
    public SpillwayConfig ioOrder(final IoOrder order)
    {
        checkNotBuilt();
        this.ioOrder = order;
        return this;
    }

    /**
     * Policy {@code s}: workers share one ready queue (work sharing, Algorithm 4 of seed 003). When off, each task
     * goes to the worker that owns its first written object. Default on.
     */
    public SpillwayConfig sharedReadyQueue(final boolean shared)
    {
        checkNotBuilt();
        this.sharedReadyQueue = shared;
        return this;
    }

    /** Policy {@code d}: evict unmodified objects before modified ones. Default on. */
    public SpillwayConfig cleanFirstEviction(final boolean cleanFirst)
    {
        checkNotBuilt();
        this.cleanFirst = cleanFirst;
        return this;
    }

    /**
     * Look-ahead prefetch: how many submitted-but-blocked tasks, in submission order, may have their inputs read
     * early into free DRAM (prefetch never evicts). 0 turns it off. Default 16; property
     * {@code spillway.prefetchDepth}.
     */
    public SpillwayConfig prefetchDepth(final int depth)
    {
        checkNotBuilt();
        this.prefetchDepth = depth;
        return this;
    }

    /**
     * Hand-overs: a successor that waits for nothing else and uses only objects its predecessor holds in DRAM (a
     * READ_WRITE chain on one object) is admitted while the predecessor is ready or runs, and handed to its worker,
     * which runs it as soon as the predecessor's body returns, ahead of the ready queue and without a round trip
     * through the IO thread. Up to 8 are handed over ahead of a task, and a worker takes 64 in a row before it lets
     * the next one queue behind other ready tasks. The successor may start before the predecessor's handle reports it
     * done. Never under IO order {@code f} (strict arrival order) or with checkpoints. Default on; property
     * {@code spillway.handOvers}.
     */
    public SpillwayConfig handOvers(final boolean on)
    {
        checkNotBuilt();
        this.handOvers = on;
        return this;
    }

    /**
     * Admission ahead of the workers, in tasks per worker: a task that must evict to be admitted waits while this
     * many per worker are admitted and unfinished, so admission does not fill DRAM with far-ahead tasks and evict
     * what the running ones are about to reuse (a tile column under LU's left-looking priorities). Only the head of
     * the admission queue is held, and only when it must evict; those behind it wait as they do for DRAM. Tasks that
     * complete elsewhere ({@code AsyncTaskBody}: transfers, acquires) are not counted. 0 turns the limit off.
     * Default 2; property {@code spillway.admissionWindow}.
     */
    public SpillwayConfig admissionWindow(final int tasksPerWorker)
    {
        checkNotBuilt();
        this.admissionWindow = tasksPerWorker;
        return this;
    }

    /**
     * Background write-back: while the IO thread is idle it writes back unreferenced dirty objects (farthest next
     * use first) until this fraction of the budget is clean or free, so later evictions need no write. It writes
     * nothing while the data declared so far fits the budget. 0 turns it off. Default 0.125; property
     * {@code spillway.cleanReserve}.
     */
    public SpillwayConfig cleanReserve(final double fraction)
    {
        checkNotBuilt();
        this.cleanReserve = fraction;
        return this;
    }

    /** Pin each worker to a CPU with OpenHFT Affinity. Default off; property {@code spillway.pinWorkers}. */
    public SpillwayConfig pinWorkers(final boolean pin)
    {
        checkNotBuilt();
        this.pinWorkers = pin;
        return this;
    }

    /**
     * Debugging aid for buffers kept past their task (see {@link TaskContext#buffer}): DRAM given back by an object
     * is filled with a NaN pattern ({@code 0xFFF8DEADFFF8DEAD} per long), so stale reads show it, and the pattern is
     * checked before the DRAM is reused or freed, so a stale write stops the runtime with an error naming the object
     * that last held it. Costs a pass over every released buffer. Default off; property
     * {@code spillway.poisonReleasedBuffers}.
     */
    public SpillwayConfig poisonReleasedBuffers(final boolean poison)
    {
        checkNotBuilt();
        this.poisonReleasedBuffers = poison;
        return this;
    }

    /**
     * Write a Chrome trace-event JSON file on close: one row per worker and one for the IO thread, rows of
     * checkpoint generations and of {@link Spillway#tracePhase phases}, and counter tracks of DRAM in use, store
     * bandwidth and cache counts sampled every 10 ms. Default none; property {@code spillway.trace}.
     */
    public SpillwayConfig traceFile(final Path file)
    {
        checkNotBuilt();
        this.traceFile = file;
        return this;
    }

    /** What {@link Spillway#close()} does with unfinished tasks. Default {@link CloseMode#DRAIN}. */
    public SpillwayConfig closeMode(final CloseMode mode)
    {
        checkNotBuilt();
        if (mode == null)
        {
            throw new NullPointerException("closeMode is null");
        }
        this.closeMode = mode;
        return this;
    }

    /** Slots in the request ring into the IO thread (a power of two). Default 16384; property {@code spillway.ringSize}. */
    public SpillwayConfig ringSize(final int slots)
    {
        checkNotBuilt();
        this.ringSize = slots;
        return this;
    }

    /**
     * Longest park of an idle worker or IO thread after spinning and yielding, in nanoseconds. Producers wake a
     * parked thread, so this only bounds a safety-net timeout. Default 1 ms; property
     * {@code spillway.idleMaxParkNanos}.
     */
    public SpillwayConfig idleMaxParkNanos(final long nanos)
    {
        checkNotBuilt();
        this.idleMaxParkNanos = nanos;
        return this;
    }

    /**
     * Take checkpoints into {@code store} when {@code policy} says so, and resume from the newest verified one when
     * the store holds an unfinished run. Default none. The {@code resilience} module builds both
     * ({@code dev.spillway.resilience.Checkpoints}). Restarting requires the program to submit the same tasks in the
     * same order, and task bodies to be deterministic and to have no effects outside their data objects.
     */
    public SpillwayConfig checkpoints(final CheckpointStore store, final CheckpointPolicy policy)
    {
        checkNotBuilt();
        this.checkpointStore = store;
        this.checkpointPolicy = policy;
        return this;
    }

    /**
     * Whether a checkpoint holds tasks back only for the local capture or until it is durable. Default
     * {@link CheckpointMode#SEMI_BLOCKING}; property {@code spillway.checkpointMode} ({@code semi_blocking} or
     * {@code blocking}).
     */
    public SpillwayConfig checkpointMode(final CheckpointMode mode)
    {
        checkNotBuilt();
        this.checkpointMode = mode;
        return this;
    }

    /**
     * The share of the IO thread's bytes that checkpoint writes get while out-of-core transfers wait too, in (0, 1).
     * Neither side can starve the other: with both queued, the IO thread picks whichever is below its share. Default
     * 0.25; property {@code spillway.checkpointIoShare}.
     */
    public SpillwayConfig checkpointIoShare(final double share)
    {
        checkNotBuilt();
        this.checkpointIoShare = share;
        return this;
    }

    /** Validates the settings and opens a runtime. */
    public Spillway build()
    {
        if (built)
        {
            throw new IllegalStateException("this configuration already built a runtime; use a new builder");
        }
        conclude();
        built = true;
        return new Spillway(this);
    }

    private void checkNotBuilt()
    {
        if (built)
        {
            throw new IllegalStateException("settings cannot change once a runtime is built from them");
        }
    }

    void conclude()
    {
        require(workers >= 1, "workers must be at least 1, got " + workers);
        require(dramBudget > 0, "DRAM budget must be positive, got " + dramBudget);
        require(diskCap > 0, "disk cap must be positive, got " + diskCap);
        require(prefetchDepth >= 0, "prefetch depth must be >= 0, got " + prefetchDepth);
        require(admissionWindow >= 0, "admission window must be >= 0, got " + admissionWindow);
        require(cleanReserve >= 0 && cleanReserve < 1, "clean reserve must be in [0, 1), got " + cleanReserve);
        require(Integer.bitCount(ringSize) == 1, "ring size must be a power of two, got " + ringSize);
        require(storeDir != null, "store directory must be set");
        require(checkpointIoShare > 0 && checkpointIoShare < 1,
            "checkpoint IO share must be in (0, 1), got " + checkpointIoShare);
        require((checkpointStore == null) == (checkpointPolicy == null),
            "checkpoints need both a store and a policy");
        require(idleMaxParkNanos >= 1000, "idle max park must be at least 1000 ns, got " + idleMaxParkNanos);
    }

    private static void require(final boolean ok, final String message)
    {
        if (!ok)
        {
            throw new IllegalArgumentException(message);
        }
    }

    /** @return worker count. */
    public int workers()
    {
        return workers;
    }

    /** @return DRAM budget in bytes. */
    public long dramBudget()
    {
        return dramBudget;
    }

    /** @return the store kind. */
    public StoreKind storeKind()
    {
        return storeKind;
    }

    /** @return the spill directory. */
    public Path storeDir()
    {
        return storeDir;
    }

    /** @return the disk cap in bytes. */
    public long diskCap()
    {
        return diskCap;
    }

    /** @return the most blocks the store holds at once (the store kind's default unless set). */
    public int storeMaxBlocks()
    {
        return storeMaxBlocks > 0 ? storeMaxBlocks : storeKind == StoreKind.DIRECT ? 1 << 18 : 4096;
    }

    /** @return the store's average-block hint in bytes. */
    public int storeAverageBlock()
    {
        return storeAverageBlock;
    }

    /** @return the IO order. */
    public IoOrder ioOrder()
    {
        return ioOrder;
    }

    /** @return whether the ready queue is shared (policy s). */
    public boolean sharedReadyQueue()
    {
        return sharedReadyQueue;
    }

    /** @return whether released buffers are poisoned and checked. */
    public boolean poisonReleasedBuffers()
    {
        return poisonReleasedBuffers;
    }

    /** @return whether eviction is clean-first (policy d). */
    public boolean cleanFirstEviction()
    {
        return cleanFirst;
    }

    /** @return look-ahead depth in tasks. */
    public int prefetchDepth()
    {
        return prefetchDepth;
    }

    /** @return whether successors are handed to their predecessor's worker. */
    public boolean handOvers()
    {
        return handOvers;
    }

    /** @return admitted, unfinished tasks per worker beyond which a task that must evict waits; 0: no limit. */
    public int admissionWindow()
    {
        return admissionWindow;
    }

    /** @return the clean reserve as a fraction of the budget. */
    public double cleanReserve()
    {
        return cleanReserve;
    }

    /** @return whether workers are pinned. */
    public boolean pinWorkers()
    {
        return pinWorkers;
    }

    /** @return the trace file, or null. */
    public Path traceFile()
    {
        return traceFile;
    }

    /** @return the close mode. */
    public CloseMode closeMode()
    {
        return closeMode;
    }

    /** @return ring slots. */
    public int ringSize()
    {
        return ringSize;
    }

    /** @return the idle park ceiling in ns. */
    public long idleMaxParkNanos()
    {
        return idleMaxParkNanos;
    }


    /** @return the checkpoint store, or {@code null} when checkpoints are off. */
    public CheckpointStore checkpointStore()
    {
        return checkpointStore;
    }

    /** @return the checkpoint policy, or {@code null} when checkpoints are off. */
    public CheckpointPolicy checkpointPolicy()
    {
        return checkpointPolicy;
    }

    /** @return how checkpoints hold tasks back. */
    public CheckpointMode checkpointMode()
    {
        return checkpointMode;
    }

    /** @return the checkpoint share of contended IO-thread bytes. */
    public double checkpointIoShare()
    {
        return checkpointIoShare;
    }
}
