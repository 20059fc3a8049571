package dev.spillway.internal;

import jdk.jfr.Category;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: one task body run. */
@Name("dev.spillway.TaskRun")
@Label("Task run")
@Category("Spillway")
@StackTrace(false)
final class TaskRunEvent extends Event
{
    @Label("Task")
    String task;
    @Label("Sequence")
    long seq;
    @Label("Worker")
    int worker;
}
