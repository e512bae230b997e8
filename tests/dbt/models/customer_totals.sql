{{ config(materialized='incremental', incremental_strategy='insert_overwrite') }}
select c.id as customer_id, c.name, count(o.id) as orders, coalesce(sum(o.amount), 0) as amount
from {{ ref('customers_dim') }} c
left join {{ ref('stg_orders') }} o on o.customer_id = c.id
group by c.id, c.name
