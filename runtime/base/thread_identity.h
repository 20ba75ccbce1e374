// runtime/base/thread_identity.h
//
// Which thread is running, as a value: what a recorder keys the work of a scheduler's task by
// while the task runs (its exchanges belong to the task, not to whatever the run does meanwhile
// on other threads). The identity is the address of a thread-local object, unique among the
// threads alive at once; naming a thread starts none and asks the system nothing.
#pragma once

namespace agentrt {

using ThreadIdentity = const void*;

inline ThreadIdentity CurrentThread() {
  thread_local const char tag = 0;
  return &tag;
}

}  // namespace agentrt
