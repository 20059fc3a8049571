package dev.spillway.memory;

/** A submitted task that will use a data object, as seen by victim selection. */
public interface FutureUse
{
    /** @return the task's submission sequence. */
    long seq();

    /** @return the task's priority: under priority order, higher runs sooner. */
    int priority();

    /** @return true once the task has been admitted (it then holds a reference instead). */
    boolean admitted();
}
