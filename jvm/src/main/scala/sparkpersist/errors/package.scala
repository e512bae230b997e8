package sparkpersist

/**
 * The project's errors as Spark reports its own: every error a user sees carries an error
 * condition (`PERSIST_...`) and a SQLSTATE from `error/sparkpersist-error-conditions.json`, read
 * through Spark's `ErrorClassesJsonReader`, so SQL, Thrift and Connect clients get
 * `[PERSIST_...] message SQLSTATE: xxxxx` and the condition itself ([[sparkpersist.errors.PersistError]],
 * [[sparkpersist.errors.PersistThrowable]]).
 *
 * Layer rule: `errors` imports nothing of sparkpersist.
 */
package object errors
