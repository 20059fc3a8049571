package dev.spillway.cli.report;

/** A phase of the run or a checkpoint generation: a named interval, in microseconds. */
record Mark(String name, double start, double end)
{
}
