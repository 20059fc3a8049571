package dev.spillway;

/**
 * What {@link Spillway#close()} did.
 *
 * @param mode      drained or cancelled.
 * @param completed tasks that ran to completion over the runtime's life.
 * @param failed    tasks that failed (thrown, or lost their inputs) over the runtime's life.
 * @param cancelled tasks cancelled by the close.
 */
public record CloseReport(CloseMode mode, long completed, long failed, long cancelled)
{
    @Override
    public String toString()
    {
        return "closed (" + mode.name().toLowerCase() + "): " + completed + " completed, " + failed + " failed, " +
            cancelled + " cancelled";
    }
}
