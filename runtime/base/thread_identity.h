// runtime/base/thread_identity.h
//
// Which thread is running, as a value: what a recorder keys the work of a scheduler's task by
// while the task runs (its exchanges belong to the task, not to whatever the run does meanwhile
// on other threads). Naming a thread starts none.
#pragma once

#include <thread>

namespace agentrt {

using ThreadIdentity = std::thread::id;

inline ThreadIdentity CurrentThread() { return std::this_thread::get_id(); }

}  // namespace agentrt
