#include "base/thread_stack.h"

#include <pthread.h>

#include <cstring>
#include <string>

namespace kuota {

Status SetDefaultThreadStackSize(size_t bytes) {
  pthread_attr_t attr;
  if (int e = pthread_getattr_default_np(&attr); e != 0) {
    return Status::Internal(std::string("reading the default thread attributes: ") +
                            std::strerror(e));
  }
  int e = pthread_attr_setstacksize(&attr, bytes);
  if (e == 0) e = pthread_setattr_default_np(&attr);
  pthread_attr_destroy(&attr);
  if (e != 0) {
    return Status::Invalid("a thread stack of " + std::to_string(bytes) +
                           " bytes: " + std::strerror(e));
  }
  return Status::Ok();
}

size_t DefaultThreadStackSize() {
  pthread_attr_t attr;
  size_t bytes = 0;
  if (pthread_getattr_default_np(&attr) == 0) {
    pthread_attr_getstacksize(&attr, &bytes);
    pthread_attr_destroy(&attr);
  }
  return bytes;
}

}  // namespace kuota
