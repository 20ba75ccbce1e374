// runtime/observe/trace/writer.h
//
// Trace writers: store observers (store::EventObserver) that write each event as one line of
// text or JSON Lines (format.h) to a stream. Usable as well over events read back from the
// store (Write).
//
// Promises: every line is whole, even when events arrive from several threads at once (lines
// are serialized by a mutex and each is written with one call, then flushed); the first write
// error is kept, later events are not written, and status() reports it. The stream must
// outlive the writer, and the writer every store it observes.
#pragma once

#include <ostream>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "runtime/observe/trace/format.h"
#include "runtime/store/store.h"

namespace agentrt::trace {

// LineOutput writes whole lines to a stream, one at a time, keeping the first error.
class LineOutput {
 public:
  explicit LineOutput(std::ostream& out) : out_(out) {}
  LineOutput(const LineOutput&) = delete;
  LineOutput& operator=(const LineOutput&) = delete;

  // WriteLine writes `line` (its own newline included) and flushes. Returns the first error
  // this output met: Unavailable once a write failed (nothing more is written after it).
  absl::Status WriteLine(std::string_view line);
  absl::Status status() const;

 private:
  mutable absl::Mutex mu_;
  std::ostream& out_ ABSL_GUARDED_BY(mu_);
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

// TextWriter writes TextLine(event) for each event.
class TextWriter {
 public:
  explicit TextWriter(std::ostream& out, TextOptions options = {})
      : output_(out), options_(options) {}

  absl::Status Write(const store::Event& event) {
    return output_.WriteLine(TextLine(event, options_));
  }
  absl::Status status() const { return output_.status(); }
  // Observer writes each committed event; errors are kept for status().
  store::EventObserver Observer() {
    return [this](const store::Event& event) { Write(event).IgnoreError(); };
  }

 private:
  LineOutput output_;
  TextOptions options_;
};

// JsonlWriter writes JsonlLine(event) for each event.
class JsonlWriter {
 public:
  explicit JsonlWriter(std::ostream& out) : output_(out) {}

  absl::Status Write(const store::Event& event) { return output_.WriteLine(JsonlLine(event)); }
  absl::Status status() const { return output_.status(); }
  store::EventObserver Observer() {
    return [this](const store::Event& event) { Write(event).IgnoreError(); };
  }

 private:
  LineOutput output_;
};

}  // namespace agentrt::trace
