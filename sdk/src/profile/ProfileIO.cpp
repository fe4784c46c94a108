// Profile files: conversion between the public structs and the Protocol Buffers messages,
// reading, writing and the JSON rendering.
#include <tessera/profile/ProfileReader.hpp>

#include <fstream>
#include <sstream>

#include <google/protobuf/util/json_util.h>
#include <poplar/exceptions.hpp>

#include "profile.pb.h"
#include "profile/ProfileBytes.hpp"
#include "profile/ProfileFileWriter.hpp"

namespace tessera::profile {

namespace {

void toProto(const GraphProfile &p, pb::GraphProfile &m) {
  m.set_format_version(p.formatVersion);
  m.set_sdk_version(p.sdkVersion);
  auto *t = m.mutable_target();
  t->set_arch(p.target.arch);
  t->set_num_ipus(p.target.numIPUs);
  t->set_tiles_per_ipu(p.target.tilesPerIPU);
  t->set_num_tiles(p.target.numTiles);
  t->set_worker_contexts(p.target.workerContexts);
  t->set_bytes_per_tile(p.target.bytesPerTile);
  t->set_clock_hz(p.target.clockHz);
  t->set_exchange_bytes_per_cycle(p.target.exchangeBytesPerCycle);
  t->set_sync_cycles(p.target.syncCycles);
  for (const auto &tm : p.tiles) {
    auto *x = m.add_tiles();
    x->set_variables(tm.variables);
    x->set_vertex_state(tm.vertexState);
    x->set_exchange(tm.exchange);
    x->set_padding(tm.padding);
  }
  for (const auto &v : p.variables) {
    auto *x = m.add_variables();
    x->set_name(v.name);
    x->set_type(v.type);
    for (auto d : v.shape)
      x->add_shape(d);
    x->set_bytes(v.bytes);
    x->set_tiles(v.tiles);
    x->set_constant(v.constant);
  }
  for (const auto &c : p.computeSets) {
    auto *x = m.add_compute_sets();
    x->set_name(c.name);
    x->set_vertices(c.vertices);
    x->set_tiles(c.tiles);
    for (const auto &vt : c.vertexTypes) {
      auto *y = x->add_vertex_types();
      y->set_type(vt.type);
      y->set_count(vt.count);
    }
    x->set_compute_cycles(c.computeCycles);
    x->set_exchange_cycles(c.exchangeCycles);
    x->set_sync_cycles(c.syncCycles);
    x->set_exchange_bytes(c.exchangeBytes);
    x->set_slowest_tile(c.slowestTile);
    x->set_exchange_buffer_bytes(c.exchangeBufferBytes);
  }
  for (const auto &s : p.steps) {
    auto *x = m.add_steps();
    x->set_kind(s.kind);
    x->set_name(s.name);
    x->set_compute_set(s.computeSet);
    x->set_estimated_cycles(s.estimatedCycles);
    x->set_exchange_bytes(s.exchangeBytes);
  }
  for (auto s : p.programStart)
    m.add_program_start(s);
  m.set_out_of_memory(p.outOfMemory);
  m.set_error(p.error);
  m.set_has_vertex_type_estimates(p.hasVertexTypeEstimates);
  m.set_num_variables(p.numVariables);
}

GraphProfile fromProto(const pb::GraphProfile &m) {
  GraphProfile p;
  p.formatVersion = m.format_version();
  p.sdkVersion = m.sdk_version();
  const auto &t = m.target();
  p.target = {t.arch(),
              t.num_ipus(),
              t.tiles_per_ipu(),
              t.num_tiles(),
              t.worker_contexts(),
              t.bytes_per_tile(),
              t.clock_hz(),
              t.exchange_bytes_per_cycle(),
              t.sync_cycles()};
  for (const auto &x : m.tiles())
    p.tiles.push_back({x.variables(), x.vertex_state(), x.exchange(), x.padding()});
  for (const auto &x : m.variables())
    p.variables.push_back({x.name(),
                           x.type(),
                           {x.shape().begin(), x.shape().end()},
                           x.bytes(),
                           x.tiles(),
                           x.constant()});
  for (const auto &x : m.compute_sets()) {
    ComputeSet c;
    c.name = x.name();
    c.vertices = x.vertices();
    c.tiles = x.tiles();
    for (const auto &y : x.vertex_types())
      c.vertexTypes.push_back({y.type(), y.count()});
    c.computeCycles = x.compute_cycles();
    c.exchangeCycles = x.exchange_cycles();
    c.syncCycles = x.sync_cycles();
    c.exchangeBytes = x.exchange_bytes();
    c.slowestTile = x.slowest_tile();
    c.exchangeBufferBytes = x.exchange_buffer_bytes();
    p.computeSets.push_back(std::move(c));
  }
  for (const auto &x : m.steps())
    p.steps.push_back(
        {x.kind(), x.name(), x.compute_set(), x.estimated_cycles(), x.exchange_bytes()});
  p.programStart.assign(m.program_start().begin(), m.program_start().end());
  p.outOfMemory = m.out_of_memory();
  p.error = m.error();
  p.hasVertexTypeEstimates = m.has_vertex_type_estimates();
  p.numVariables = m.num_variables();
  return p;
}

void toProto(const ExecutionProfile &p, pb::ExecutionProfile &m) {
  m.set_format_version(p.formatVersion);
  m.set_runs(p.runs);
  m.set_instrumented(p.instrumented);
  for (const auto &s : p.steps) {
    auto *x = m.add_steps();
    x->set_step(s.step);
    x->set_runs(s.runs);
    x->set_estimated_cycles(s.estimatedCycles);
    x->set_host_ns(s.hostNs);
  }
  for (const auto &e : p.timeline) {
    auto *x = m.add_timeline();
    x->set_step(e.step);
    x->set_start_cycle(e.startCycle);
    x->set_cycles(e.cycles);
    x->set_host_start_ns(e.hostStartNs);
    x->set_host_ns(e.hostNs);
  }
  m.set_timeline_truncated(p.timelineTruncated);
  m.set_total_estimated_cycles(p.totalEstimatedCycles);
  m.set_total_host_ns(p.totalHostNs);
  for (const auto &r : p.programRuns) {
    auto *x = m.add_program_runs();
    x->set_program(r.program);
    x->set_first_event(r.firstEvent);
    x->set_events(r.events);
    x->set_start_cycle(r.startCycle);
    x->set_cycles(r.cycles);
  }
  m.set_program_runs_truncated(p.programRunsTruncated);
}

ExecutionProfile fromProto(const pb::ExecutionProfile &m) {
  ExecutionProfile p;
  p.formatVersion = m.format_version();
  p.runs = m.runs();
  p.instrumented = m.instrumented();
  for (const auto &x : m.steps())
    p.steps.push_back({x.step(), x.runs(), x.estimated_cycles(), x.host_ns()});
  for (const auto &x : m.timeline())
    p.timeline.push_back({x.step(), x.start_cycle(), x.cycles(), x.host_start_ns(), x.host_ns()});
  p.timelineTruncated = m.timeline_truncated();
  p.totalEstimatedCycles = m.total_estimated_cycles();
  p.totalHostNs = m.total_host_ns();
  for (const auto &x : m.program_runs())
    p.programRuns.push_back(
        {x.program(), x.first_event(), x.events(), x.start_cycle(), x.cycles()});
  p.programRunsTruncated = m.program_runs_truncated();
  return p;
}

template <class Message> Message readMessage(const std::string &path, const char *what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw poplar::parse_error("cannot open " + std::string(what) + " file '" + path + "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  Message m;
  const std::string data = bytes.str();
  // A profile always has format_version set, so an empty message is not a profile either.
  if (!m.ParseFromString(data) || m.format_version() == 0)
    throw poplar::parse_error("'" + path + "' is not a valid Tessera " + std::string(what) +
                              " (corrupt, truncated or another kind of file)");
  return m;
}

template <class Message> std::string json(const Message &m) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string out;
  const auto status = google::protobuf::util::MessageToJsonString(m, &out, options);
  if (!status.ok())
    throw poplar::runtime_error("cannot render profile as JSON: " + status.ToString());
  return out;
}

} // namespace

GraphProfile readGraphProfile(const std::string &path) {
  return fromProto(readMessage<pb::GraphProfile>(path, "graph profile"));
}

ExecutionProfile readExecutionProfile(const std::string &path) {
  return fromProto(readMessage<pb::ExecutionProfile>(path, "execution profile"));
}

ProfileReport readProfileReport(const std::string &path) {
  const auto m = readMessage<pb::Report>(path, "profile report");
  // Each part carries its own format version, so a report whose parts were lost is corrupt too.
  if (m.graph().format_version() == 0 || (m.has_execution() && m.execution().format_version() == 0))
    throw poplar::parse_error("'" + path + "' is not a valid Tessera profile report (its " +
                              (m.graph().format_version() == 0 ? "graph" : "execution") +
                              " profile is missing)");
  ProfileReport r;
  r.graph = fromProto(m.graph());
  if (m.has_execution())
    r.execution = fromProto(m.execution());
  return r;
}

void writeGraphProfile(const GraphProfile &p, const std::string &path) {
  pb::GraphProfile m;
  toProto(p, m);
  poplar::profile::writeProfileFile(path, m.SerializeAsString());
}

void writeExecutionProfile(const ExecutionProfile &p, const std::string &path) {
  pb::ExecutionProfile m;
  toProto(p, m);
  poplar::profile::writeProfileFile(path, m.SerializeAsString());
}

void writeProfileReport(const GraphProfile &graph, const ExecutionProfile *exec,
                        const std::string &path) {
  pb::Report m;
  m.set_format_version(1);
  toProto(graph, *m.mutable_graph());
  if (exec)
    toProto(*exec, *m.mutable_execution());
  poplar::profile::writeProfileFile(path, m.SerializeAsString());
}

std::string toJson(const GraphProfile &p) {
  pb::GraphProfile m;
  toProto(p, m);
  return json(m);
}

std::string toJson(const ExecutionProfile &p) {
  pb::ExecutionProfile m;
  toProto(p, m);
  return json(m);
}

} // namespace tessera::profile

namespace poplar::profile {

std::string serializeGraphProfile(const tessera::profile::GraphProfile &p) {
  tessera::profile::pb::GraphProfile m;
  tessera::profile::toProto(p, m);
  return m.SerializeAsString();
}

tessera::profile::GraphProfile parseGraphProfile(const std::string &bytes) {
  tessera::profile::pb::GraphProfile m;
  if (!m.ParseFromString(bytes) || m.format_version() == 0)
    throw parse_error("the graph profile inside the executable is corrupt");
  return tessera::profile::fromProto(m);
}

} // namespace poplar::profile
