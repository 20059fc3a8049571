package dev.spillway;

import java.nio.ByteBuffer;

/** What a running task sees: its declared objects' DRAM buffers, each as its privilege allows. */
public interface TaskContext
{
    /**
     * <p><b>Lifetime:</b> the buffer is valid only while the task's body runs. Do not keep it: after the body returns
     * the runtime may move the object to NVMe and give the same DRAM to another object, so a kept buffer would show
     * (or change) that object's bytes. After {@link Spillway#close()} a kept buffer is harmless but meaningless: its
     * memory is returned to the OS and reads give zeros. {@link SpillwayConfig#poisonReleasedBuffers(boolean)}
     * makes such use visible while debugging.
     *
     * @param data an object the task declared.
     * @return a buffer over the object's bytes in native byte order, position 0 and limit {@code data.size()}:
     *         read-only for {@link Privilege#READ} (writes throw {@link java.nio.ReadOnlyBufferException}),
     *         writable otherwise. For {@link Privilege#WRITE} and {@link Privilege#SCRATCH} the initial contents are
     *         unspecified: a WRITE task must write every byte.
     * @throws PrivilegeViolationException if the task did not declare {@code data}.
     */
    ByteBuffer buffer(Data data);

    /** @return the task's name. */
    String taskName();
}
