package dev.spillway.io;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Named points at which a fault-injection test kills this JVM with {@code kill -9}. Armed by the system property
 * {@code spillway.crashAt=NAME} (and optionally {@code spillway.crashAtHit=N}, default 1, for the N-th time the
 * point is reached): the armed point prints {@code CRASHPOINT NAME PID} on stdout and blocks the calling thread until
 * the supervising test kills the process. Disarmed, {@link #hit} is one string comparison.
 */
public final class CrashPoints
{
    /** On a worker, as a task body starts. */
    public static final String IN_TASK = "task.body";
    /** On the IO thread, while capturing objects for a checkpoint. */
    public static final String CAPTURE = "ckpt.capture";
    /** After a generation's blocks are durable, before its manifest is written. */
    public static final String BEFORE_MANIFEST = "ckpt.after-blocks-before-manifest";
    /** After the manifest's temporary file is durable, before the rename that commits it. */
    public static final String MANIFEST_RENAME = "ckpt.manifest-rename";
    /** On the IO thread, while writing a dirty object back to the spill store. */
    public static final String SPILL_WRITE = "spill.write-back";
    /** While verifying and restoring a generation on restart. */
    public static final String RESTORE = "restore.verify";
    /** As a rank starts sending a data object to another rank. */
    public static final String TRANSFER_SEND = "transfer.send";
    /** On a rank's buddy-copy thread, before it sends each chunk of a committed generation to its buddy. */
    public static final String BUDDY_STREAM = "buddy.stream";
    /** On a rank's buddy-copy thread, after every chunk went out, before the message that ends the generation. */
    public static final String BUDDY_BEFORE_END = "buddy.before-end";
    /** On the buddy, after a generation's last message arrived, before its copy is made durable. */
    public static final String BUDDY_KEEP = "buddy.keep";
    /** On a rank fetching its checkpoint back from its buddy, before it writes each chunk. */
    public static final String BUDDY_FETCH = "buddy.fetch";
    /** On a replica receiving a transfer, after one replica's copy arrived, before it takes the next one's. */
    public static final String BETWEEN_COPIES = "replica.between-copies";
    /** On a replica comparing a committed cut, as it starts exchanging the cut's digest with its partners. */
    public static final String DIGEST_EXCHANGE = "replica.digest-exchange";

    private static final String ARMED = System.getProperty("spillway.crashAt");
    private static final int HIT = Integer.getInteger("spillway.crashAtHit", 1);
    private static final AtomicInteger HITS = new AtomicInteger();

    private CrashPoints()
    {
    }

    /** Blocks forever, after announcing it, if {@code name} is the armed point and this is its armed hit. */
    public static void hit(final String name)
    {
        if (ARMED == null || !ARMED.equals(name) || HITS.incrementAndGet() != HIT)
        {
            return;
        }
        System.out.println("CRASHPOINT " + name + " " + ProcessHandle.current().pid());
        System.out.flush();
        while (true)
        {
            LockSupport.parkNanos(1_000_000_000L);
        }
    }
}
